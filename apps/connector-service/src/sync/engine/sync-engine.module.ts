import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ProcessRole, runsWorkers } from '@app/config';
import { OutageModule } from '@app/database';
import { fairShareProvider } from '@app/queue';
import { BlobsModule } from '../../blobs/blobs.module';
import { DataSourcesModule } from '../../data-sources/data-sources.module';
import { FoldersModule } from '../../data-sources/folders/folders.module';
import { SelectionModule } from '../../data-sources/selection/selection.module';
import { DocumentStoreModule } from '../../documents/document-store.module';
import { ConnectorEventsModule } from '../../events/connector-events.module';
import { FileLedgerModule } from '../../file-ledger/file-ledger.module';
import { IndexingModule } from '../../indexing/indexing.module';
import { ConnectorMetricsModule } from '../../metrics/connector-metrics.module';
import { SearchableModule } from '../../searchable/searchable.module';
import { SYNC_FAIR_SHARE, SYNC_QUEUE } from '../sync.jobs';
import { SyncModule } from '../sync.module';
import { BatchContents } from './batch-contents';
import { DeletionGuard } from './deletion-guard';
import { EndedRunEvents } from './ended-run-events';
import { FailedSteps } from './failed-steps';
import { FileDownloads } from './file-downloads';
import { RunBytes } from './run-bytes';
import { FolderPagesRepository } from './folder-pages.repository';
import { GoneFilesRepository } from './gone-files.repository';
import { HeldDeletionsRepository } from './held-deletions.repository';
import { IngestFilesStep } from './ingest-files.step';
import { ListFolderStep } from './list-folder.step';
import { LostWorkRepository } from './lost-work.repository';
import { RunFollowUps } from './run-follow-ups';
import { RunSessions } from './run-sessions';
import { SelectedFolderPlaces } from './selected-folder-places';
import { StartRunStep } from './start-run.step';
import { StepGuard } from './step-guard';
import { StepJobs } from './step-jobs';
import { SyncCompletion } from './sync-completion';
import { SyncScheduleRepository } from './sync-schedule.repository';
import { SyncScheduler } from './sync-scheduler';
import { SyncStarter } from './sync-starter';
import { SyncProducer } from './sync.producer';
import { SyncProcessor } from './sync.processor';
import { UnselectedSources } from './unselected-sources';

/**
 * What runs a run: starting and ending one always (the API starts and cancels runs); its steps, their
 * processor and the sweep only in processes that run workers.
 */
@Module({})
export class SyncEngineModule {
  private static readonly byRole = new Map<ProcessRole, DynamicModule>();

  /** One module per role: the app and the API both import it, and Nest tells dynamic modules apart by reference. */
  static forRole(role: ProcessRole): DynamicModule {
    const built = SyncEngineModule.byRole.get(role) ?? SyncEngineModule.build(role);
    SyncEngineModule.byRole.set(role, built);
    return built;
  }

  private static build(role: ProcessRole): DynamicModule {
    const workers: Provider[] = runsWorkers(role)
      ? [
          StartRunStep,
          SelectedFolderPlaces,
          ListFolderStep,
          IngestFilesStep,
          BatchContents,
          FailedSteps,
          StepGuard,
          StepJobs,
          RunFollowUps,
          FileDownloads,
          GoneFilesRepository,
          FolderPagesRepository,
          RunBytes,
          RunSessions,
          LostWorkRepository,
          SyncScheduleRepository,
          SyncScheduler,
          SyncProcessor,
        ]
      : [];
    return {
      module: SyncEngineModule,
      imports: [
        SyncModule,
        BullModule.registerQueue({ name: SYNC_QUEUE }),
        ConnectorEventsModule.forRole(role),
        SearchableModule.forRole(role),
        DataSourcesModule,
        FoldersModule,
        SelectionModule,
        DocumentStoreModule,
        FileLedgerModule,
        BlobsModule,
        ConnectorMetricsModule,
        OutageModule,
        // Text extraction of ingested files runs on its own queue, after the run's steps.
        IndexingModule.forRole(role),
      ],
      providers: [
        fairShareProvider(SYNC_QUEUE, SYNC_FAIR_SHARE),
        SyncProducer,
        SyncStarter,
        SyncCompletion,
        EndedRunEvents,
        HeldDeletionsRepository,
        DeletionGuard,
        UnselectedSources,
        ...workers,
      ],
      exports: [SyncStarter, SyncCompletion, HeldDeletionsRepository],
    };
  }
}
