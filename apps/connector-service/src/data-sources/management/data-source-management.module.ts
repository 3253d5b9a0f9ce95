import { Module } from '@nestjs/common';
import { OutageModule } from '@app/database';
import { ConnectionsModule } from '../../connections/connections.module';
import { CredentialsModule } from '../../credentials/credentials.module';
import { DocumentSystemModule } from '../../document-system/document-system.module';
import { DataSourcesModule } from '../data-sources.module';
import { FoldersModule } from '../folders/folders.module';
import { SelectionModule } from '../selection/selection.module';
import { ConnectionChanges } from './connection-changes';
import { CredentialChanges } from './credential-changes';
import { DataSourcesController } from './data-sources.controller';
import { DataSourceMembersService } from './data-source-members.service';
import { DataSourcesService } from './data-sources.service';
import { NewDataSources } from './new-data-sources';

/** The data sources API (create, read, change, delete, members), and data sources following their connection and credential. */
@Module({
  imports: [
    DataSourcesModule,
    SelectionModule,
    FoldersModule,
    CredentialsModule,
    ConnectionsModule,
    DocumentSystemModule,
    OutageModule,
  ],
  controllers: [DataSourcesController],
  providers: [DataSourcesService, DataSourceMembersService, NewDataSources, ConnectionChanges, CredentialChanges],
})
export class DataSourceManagementModule {}
