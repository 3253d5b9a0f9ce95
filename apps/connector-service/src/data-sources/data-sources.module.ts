import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConnectionsModule } from '../connections/connections.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { DocumentSystemModule } from '../document-system/document-system.module';
import { ContentsClearingRepository } from './contents-clearing.repository';
import { DataSourceAccess } from './data-source-access';
import { DataSourceCredentialManagers } from './data-source-credential-managers';
import { DataSourceContentsRegistry } from './data-source-contents';
import { DataSourceMemberEntity } from './data-source-member.entity';
import { DataSourceMembersRepository } from './data-source-members.repository';
import { DataSourceEntity } from './data-source.entity';
import { DataSourcesRepository } from './data-sources.repository';
import { DocumentSystemSessions } from './document-system-sessions';

/**
 * Data sources as the other features use them: the records, their members, the ingestion-status moves,
 * who may read or change one, and a document-system session opened for one (the picker's and sync's). The API (management/), the folder picker (folders/) and the
 * selection (selection/) are modules of their own that depend on this one, never the reverse.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([DataSourceEntity, DataSourceMemberEntity]),
    CredentialsModule,
    ConnectionsModule,
    DocumentSystemModule,
  ],
  providers: [
    DataSourcesRepository,
    ContentsClearingRepository,
    DataSourceMembersRepository,
    DataSourceAccess,
    DataSourceCredentialManagers,
    DataSourceContentsRegistry,
    DocumentSystemSessions,
  ],
  exports: [
    DataSourcesRepository,
    ContentsClearingRepository,
    DataSourceMembersRepository,
    DataSourceAccess,
    DataSourceContentsRegistry,
    DocumentSystemSessions,
  ],
})
export class DataSourcesModule {}
