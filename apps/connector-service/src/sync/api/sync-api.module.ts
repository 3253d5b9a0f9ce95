import { DynamicModule, Module } from '@nestjs/common';
import { ProcessRole } from '@app/config';
import { OutageModule } from '@app/database';
import { DataSourcesModule } from '../../data-sources/data-sources.module';
import { DocumentStoreModule } from '../../documents/document-store.module';
import { FileLedgerModule } from '../../file-ledger/file-ledger.module';
import { SyncEngineModule } from '../engine/sync-engine.module';
import { SyncModule } from '../sync.module';
import { ConfirmDeletionsController } from './confirm-deletions.controller';
import { ConfirmDeletionsService } from './confirm-deletions.service';
import { SyncRunEventsController } from './sync-run-events.controller';
import { SyncRunStreams } from './sync-run-streams';
import { SyncController } from './sync.controller';
import { SyncService } from './sync.service';

/** Sync over HTTP: start, list, show, follow and cancel runs, and confirm the deletions a run held. */
@Module({})
export class SyncApiModule {
  static forRole(role: ProcessRole): DynamicModule {
    return {
      module: SyncApiModule,
      imports: [
        SyncModule,
        SyncEngineModule.forRole(role),
        DataSourcesModule,
        DocumentStoreModule,
        FileLedgerModule,
        OutageModule,
      ],
      controllers: [SyncController, ConfirmDeletionsController, SyncRunEventsController],
      providers: [SyncService, SyncRunStreams, ConfirmDeletionsService],
    };
  }
}
