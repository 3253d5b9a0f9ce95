import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import type { Job, Queue } from 'bull';
import { validJobData } from '@app/queue';
import { ExtractionGate } from '../indexing/extraction-gate';
import { isReauthRequired as isReauth } from '../document-system/document-system.exception';
import { SyncEngine } from './sync-engine';
import { SyncCompletion } from './sync-completion';
import { IngestFilesJob, ListFolderJob, StartRunJob, SYNC_JOB_ATTEMPTS, SYNC_QUEUE, SyncJobName } from './sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncScheduler } from './sync-scheduler';

const SWEEP_EVERY_MS = 60_000;

/** Runs the sync queue's jobs in worker processes (PROCESS_ROLE worker or all). Thin: validate, delegate. */
@Injectable()
export class SyncWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(SyncWorker.name);

  constructor(
    @InjectQueue(SYNC_QUEUE) private readonly queue: Queue,
    private readonly env: ConnectorEnv,
    private readonly engine: SyncEngine,
    private readonly completion: SyncCompletion,
    private readonly producer: SyncProducer,
    private readonly scheduler: SyncScheduler,
    private readonly gate: ExtractionGate,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const concurrency = this.env.SYNC_CONCURRENCY;
    void this.queue.process(SyncJobName.StartRun, 2, (job) => this.startRun(job));
    void this.queue.process(SyncJobName.ListFolder, concurrency, (job) =>
      this.gate.first(() => this.step(job, SyncJobName.ListFolder)),
    );
    void this.queue.process(SyncJobName.IngestFiles, concurrency, (job) =>
      this.gate.first(() => this.step(job, SyncJobName.IngestFiles)),
    );
    void this.queue.process(SyncJobName.Sweep, 1, () => this.scheduler.sweep());
    await this.producer.scheduleSweep(SWEEP_EVERY_MS);
  }

  private async startRun(job: Job): Promise<void> {
    const { syncRunId } = await validJobData(job, StartRunJob);
    try {
      await this.engine.start(syncRunId);
    } catch (error) {
      if (!isLastAttempt(job) && !isReauth(error)) throw error;
      await this.completion.abort(syncRunId, isReauth(error) ? 'NeedsReauth' : 'Failed', (error as Error).message);
    }
  }

  private async step(job: Job, kind: SyncJobName.ListFolder | SyncJobName.IngestFiles): Promise<void> {
    const data =
      kind === SyncJobName.ListFolder
        ? await validJobData(job, ListFolderJob)
        : await validJobData(job, IngestFilesJob);
    const key = String(job.id).slice(data.syncRunId.length + 1);
    try {
      if (kind === SyncJobName.ListFolder) await this.engine.listFolder(data as ListFolderJob, key);
      else await this.engine.ingestFiles(data as IngestFilesJob, key, isLastAttempt(job));
    } catch (error) {
      if (!isLastAttempt(job) && !isReauth(error)) throw error;
      await this.engine.giveUp(
        data.syncRunId,
        key,
        'files' in data ? { kind: SyncJobName.IngestFiles, files: data.files } : { kind: SyncJobName.ListFolder },
        error,
      );
    }
  }
}

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? SYNC_JOB_ATTEMPTS);
}
