import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, dropOtherIntervals, ContractQueue, FairShare, fairJob, InjectFairShare } from '@app/queue';
import { SyncRunsRepository } from '../sync-runs.repository';
import {
  SYNC_JOB_ATTEMPTS,
  SYNC_JOB_BACKOFF,
  SYNC_JOBS,
  SYNC_QUEUE,
  SyncJobName,
  SyncJobs,
  SyncTask,
} from '../sync.jobs';

/** Runs whose tenant is remembered, past which the memory starts again (a run's tenant never changes). */
const TENANTS_KEPT = 10_000;

/**
 * The only place that adds jobs to the sync queue. A run's jobs go through the queue's fair share with the
 * run's tenant (docs/fair-share.md): they enter Bull when a slot is the tenant's. Job ids make adding the
 * same work twice a no-op.
 */
@Injectable()
export class SyncProducer {
  private readonly tenants = new Map<string, string>();

  constructor(
    @InjectQueue(SYNC_QUEUE) private readonly queue: ContractQueue<SyncJobs>,
    @InjectFairShare(SYNC_QUEUE) private readonly fairShare: FairShare,
    private readonly runs: SyncRunsRepository,
  ) {}

  async startRun(syncRunId: string, tenantId?: string): Promise<void> {
    const job = fairJob(SYNC_JOBS, SyncJobName.StartRun, `${syncRunId}:start`, { syncRunId }, JOB_OPTIONS);
    await this.fairShare.add(tenantId ?? (await this.tenantOf(syncRunId)), job);
  }

  /**
   * The start job again, for a run left Running without tasks. A start job still waiting or running makes this
   * a no-op, unless it failed for good (kept for inspection): that one would block the id for ever, so it goes.
   */
  async restartRun(syncRunId: string): Promise<void> {
    await this.dropFailed(`${syncRunId}:start`);
    await this.startRun(syncRunId);
  }

  /**
   * The job that settles a data source left selecting nothing, under its tenant's share: one per data source, so
   * adding it while it waits or runs is a no-op; one that failed for good would block its id, so it goes.
   */
  async settleUnselected(dataSourceId: string, tenantId: string): Promise<void> {
    const jobId = `${dataSourceId}:settle-unselected`;
    await this.dropFailed(jobId);
    const data = { dataSourceId, tenantId };
    await this.fairShare.add(tenantId, fairJob(SYNC_JOBS, SyncJobName.SettleUnselected, jobId, data, JOB_OPTIONS));
  }

  async tasks(syncRunId: string, tasks: SyncTask[]): Promise<void> {
    if (!tasks.length) return;
    const tenantId = await this.tenantOf(syncRunId);
    await this.fairShare.addMany(
      tasks.map((t) => ({
        tenantId,
        job: fairJob(SYNC_JOBS, t.name, `${syncRunId}:${t.key}`, { ...t.data, tenantId }, JOB_OPTIONS),
      })),
    );
  }

  /** A repeating sweep that starts scheduled syncs and re-adds work a crashed process may have lost; it takes no slot. */
  async scheduleSweep(everyMs: number): Promise<void> {
    await dropOtherIntervals(this.queue, SyncJobName.Sweep, 'sweep', everyMs);
    await addJob(
      this.queue,
      SyncJobName.Sweep,
      {},
      { repeat: { every: everyMs }, jobId: 'sweep', removeOnComplete: true, removeOnFail: true },
    );
  }

  private async dropFailed(jobId: string): Promise<void> {
    const previous = await this.queue.getJob(jobId);
    if (previous && (await previous.isFailed())) await previous.remove();
  }

  private async tenantOf(syncRunId: string): Promise<string> {
    const known = this.tenants.get(syncRunId);
    if (known) return known;
    const tenantId = await this.runs.tenantOf(syncRunId);
    // A run that is gone has no work left: its jobs find it gone and end, under a tenant of their own.
    if (!tenantId) return `run:${syncRunId}`;
    if (this.tenants.size >= TENANTS_KEPT) this.tenants.clear();
    this.tenants.set(syncRunId, tenantId);
    return tenantId;
  }
}

const JOB_OPTIONS = {
  attempts: SYNC_JOB_ATTEMPTS,
  backoff: SYNC_JOB_BACKOFF,
  removeOnComplete: true,
  removeOnFail: 1000,
};
