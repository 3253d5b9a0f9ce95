import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../../connector-env';
import type { Job, Queue } from 'bull';
import { DatabaseOutages } from '@app/database';
import { isLastAttempt, JobHandlers, QueueProcessor } from '@app/queue';
import { ExtractionGate } from '../../indexing/extraction-gate';
import { isReauthRequired as isReauth } from '../../document-system/document-system.exception';
import { FailedSteps } from './failed-steps';
import { isFolderGone } from './vanished-folder';
import { IngestFilesStep } from './ingest-files.step';
import { ListFolderStep } from './list-folder.step';
import { StartRunStep } from './start-run.step';
import { SyncCompletion } from './sync-completion';
import { SYNC_JOBS, SYNC_QUEUE, SyncJobName, SyncJobs } from '../sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncScheduler } from './sync-scheduler';

const SWEEP_EVERY_MS = 60_000;

/** Runs the sync queue's jobs in worker processes (PROCESS_ROLE worker or all). Thin: validate, delegate. */
@Injectable()
export class SyncProcessor extends QueueProcessor<SyncJobs> {
  constructor(
    @InjectQueue(SYNC_QUEUE) queue: Queue,
    private readonly env: ConnectorEnv,
    private readonly startRunStep: StartRunStep,
    private readonly listFolderStep: ListFolderStep,
    private readonly ingestFilesStep: IngestFilesStep,
    private readonly failedSteps: FailedSteps,
    private readonly completion: SyncCompletion,
    private readonly producer: SyncProducer,
    private readonly scheduler: SyncScheduler,
    private readonly gate: ExtractionGate,
    private readonly outages: DatabaseOutages,
  ) {
    super(queue, SYNC_JOBS);
  }

  async onApplicationBootstrap(): Promise<void> {
    super.onApplicationBootstrap();
    await this.producer.scheduleSweep(SWEEP_EVERY_MS);
  }

  protected handlers(): JobHandlers<SyncJobs> {
    const concurrency = this.env.SYNC_CONCURRENCY;
    // A sync step goes before text extraction in this process; a step the document system refused for
    // want of a new authorization is not tried again.
    const step = {
      concurrency,
      isFinal: isReauth,
      around: <R>(work: () => Promise<R>) => this.gate.first(() => this.outages.hold(work)),
    };
    return {
      [SyncJobName.StartRun]: {
        concurrency: 2,
        isFinal: isReauth,
        around: (work) => this.outages.hold(work),
        run: ({ syncRunId }) => this.startRunStep.start(syncRunId),
        giveUp: ({ syncRunId }, error) =>
          this.completion.abort(syncRunId, isReauth(error) ? 'NeedsReauth' : 'Failed', (error as Error).message),
      },
      [SyncJobName.ListFolder]: {
        ...step,
        isFinal: (error) => isReauth(error) || isFolderGone(error),
        run: (data, job) => this.listFolderStep.listFolder(data, stepKey(job, data.syncRunId)),
        giveUp: (data, error, job) =>
          this.failedSteps.giveUp(
            data.syncRunId,
            stepKey(job, data.syncRunId),
            { kind: SyncJobName.ListFolder },
            error,
          ),
      },
      [SyncJobName.IngestFiles]: {
        ...step,
        run: (data, job) => this.ingestFilesStep.ingestFiles(data, stepKey(job, data.syncRunId), isLastAttempt(job)),
        giveUp: (data, error, job) =>
          this.failedSteps.giveUp(
            data.syncRunId,
            stepKey(job, data.syncRunId),
            { kind: SyncJobName.IngestFiles, files: data.files },
            error,
          ),
      },
      [SyncJobName.Sweep]: { concurrency: 1, run: () => this.scheduler.sweep() },
    };
  }
}

/** A step's task key: its job id without the run's id in front. */
function stepKey(job: Job, syncRunId: string): string {
  return String(job.id).slice(syncRunId.length + 1);
}
