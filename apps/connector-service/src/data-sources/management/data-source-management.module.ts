import { Module } from '@nestjs/common';
import { OutageModule } from '@app/database';
import { ConnectionsModule } from '../../connections/connections.module';
import { CredentialsModule } from '../../credentials/credentials.module';
import { DataSourcesModule } from '../data-sources.module';
import { SelectionModule } from '../selection/selection.module';
import { ConnectionChanges } from './connection-changes';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesService } from './data-sources.service';

/** The data sources API (create, read, change, delete, members), and data sources following their connection. */
@Module({
  imports: [DataSourcesModule, SelectionModule, CredentialsModule, ConnectionsModule, OutageModule],
  controllers: [DataSourcesController],
  providers: [DataSourcesService, ConnectionChanges],
})
export class DataSourceManagementModule {}
