import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourceAccess } from './data-source-access';
import { DataSourceContentsRegistry } from './data-source-contents';
import { DataSourceMemberEntity } from './data-source-member.entity';
import { DataSourceMembersRepository } from './data-source-members.repository';
import { DataSourceEntity } from './data-source.entity';
import { DataSourcesRepository } from './data-sources.repository';
import { InstanceOrigins } from './instance-origins';

/**
 * Data sources as the other features use them: the records, their members, the ingestion-status moves
 * and who may read or change one. The API (management/), the folder picker (folders/) and the
 * selection (selection/) are modules of their own that depend on this one, never the reverse.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DataSourceEntity, DataSourceMemberEntity])],
  providers: [
    DataSourcesRepository,
    DataSourceMembersRepository,
    DataSourceAccess,
    DataSourceContentsRegistry,
    InstanceOrigins,
  ],
  exports: [
    DataSourcesRepository,
    DataSourceMembersRepository,
    DataSourceAccess,
    DataSourceContentsRegistry,
    InstanceOrigins,
  ],
})
export class DataSourcesModule {}
