import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProcessRole, runsWorkers } from '@app/config';
import { OutageModule } from '@app/database';
import { BlobsModule } from '../blobs/blobs.module';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { FoldersModule } from '../data-sources/folders/folders.module';
import { DocumentStoreModule } from '../documents/document-store.module';
import { ConnectorEventsModule } from '../events/connector-events.module';
import { FileLedgerModule } from '../file-ledger/file-ledger.module';
import { IndexingModule } from '../indexing/indexing.module';
import { ConnectorMetricsModule } from '../metrics/connector-metrics.module';
import { SearchableModule } from '../searchable/searchable.module';
import { ConfirmDeletionsController } from './confirm-deletions.controller';
import { ConfirmDeletionsService } from './confirm-deletions.service';
import { DeletionGuard } from './deletion-guard';
import { FailedSteps } from './failed-steps';
import { FileDownloads } from './file-downloads';
import { HeldDeletionsRepository } from './held-deletions.repository';
import { IngestFilesStep } from './ingest-files.step';
import { ListFolderStep } from './list-folder.step';
import { RunSessions } from './run-sessions';
import { SyncCompletion } from './sync-completion';
import { RunListingRepository } from './run-listing.repository';
import { SyncController } from './sync.controller';
import { SyncRunEventsController } from './sync-run-events.controller';
import { SyncRunStreams } from './sync-run-streams';
import { SYNC_QUEUE } from './sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncRunEntity } from './sync-run.entity';
import { SyncRunsRepository } from './sync-runs.repository';
import { StartRunStep } from './start-run.step';
import { RunFollowUps } from './run-follow-ups';
import { StepGuard } from './step-guard';
import { SyncScheduleRepository } from './sync-schedule.repository';
import { SyncScheduler } from './sync-scheduler';
import { SyncService } from './sync.service';
import { SyncRunAccess } from './sync-run-access';
import { SyncStarter } from './sync-starter';
import { SyncWorker } from './sync.worker';

@Module({})
export class SyncModule {
  /** The API always; the engine and its worker only in processes that run workers. */
  static forRole(role: ProcessRole): DynamicModule {
    const workers: Provider[] = runsWorkers(role)
      ? [
          StartRunStep,
          ListFolderStep,
          IngestFilesStep,
          FailedSteps,
          StepGuard,
          RunFollowUps,
          FileDownloads,
          RunSessions,
          SyncScheduleRepository,
          SyncScheduler,
          SyncWorker,
        ]
      : [];
    return {
      module: SyncModule,
      imports: [
        TypeOrmModule.forFeature([SyncRunEntity]),
        BullModule.registerQueue({ name: SYNC_QUEUE }),
        ConnectorEventsModule.forRole(role),
        SearchableModule.forRole(role),
        DataSourcesModule,
        FoldersModule,
        DocumentStoreModule,
        FileLedgerModule,
        BlobsModule,
        ConnectorMetricsModule,
        OutageModule,
        // Text extraction of ingested files runs on its own queue, after the run's steps.
        IndexingModule.forRole(role),
      ],
      controllers: [SyncController, ConfirmDeletionsController, SyncRunEventsController],
      providers: [
        SyncRunsRepository,
        RunListingRepository,
        SyncRunStreams,
        SyncProducer,
        SyncStarter,
        SyncCompletion,
        SyncService,
        SyncRunAccess,
        HeldDeletionsRepository,
        DeletionGuard,
        ConfirmDeletionsService,
        ...workers,
      ],
    };
  }
}
