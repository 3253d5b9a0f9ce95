import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, addJobs, ContractQueue } from '@app/queue';
import { SYNC_JOB_ATTEMPTS, SYNC_JOB_BACKOFF, SYNC_QUEUE, SyncJobName, SyncJobs, SyncTask } from '../sync.jobs';

/** The only place that adds jobs to the sync queue. Job ids make adding the same work twice a no-op. */
@Injectable()
export class SyncProducer {
  constructor(@InjectQueue(SYNC_QUEUE) private readonly queue: ContractQueue<SyncJobs>) {}

  async startRun(syncRunId: string): Promise<void> {
    await addJob(this.queue, SyncJobName.StartRun, { syncRunId }, this.options(`${syncRunId}:start`));
  }

  /**
   * The start job again, for a run left Running without tasks. A start job still in Redis makes this a no-op,
   * unless it failed for good (kept for inspection): that one would block the id for ever, so it goes.
   */
  async restartRun(syncRunId: string): Promise<void> {
    const previous = await this.queue.getJob(`${syncRunId}:start`);
    if (previous && (await previous.isFailed())) await previous.remove();
    await this.startRun(syncRunId);
  }

  async tasks(syncRunId: string, tasks: SyncTask[]): Promise<void> {
    if (!tasks.length) return;
    await addJobs(
      this.queue,
      tasks.map((t) => ({ name: t.name, data: t.data, opts: this.options(`${syncRunId}:${t.key}`) })),
    );
  }

  /** A repeating sweep that starts scheduled syncs and re-adds work a crashed process may have lost. */
  async scheduleSweep(everyMs: number): Promise<void> {
    await addJob(
      this.queue,
      SyncJobName.Sweep,
      {},
      { repeat: { every: everyMs }, jobId: 'sweep', removeOnComplete: true, removeOnFail: true },
    );
  }

  private options(jobId: string) {
    return {
      jobId,
      attempts: SYNC_JOB_ATTEMPTS,
      backoff: SYNC_JOB_BACKOFF,
      removeOnComplete: true,
      removeOnFail: 1000,
    };
  }
}
