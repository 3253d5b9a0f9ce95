import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { DatabaseOutages } from '@app/database';
import { DomainException, isInfrastructureError } from '@app/errors';
import { FairShare, InjectFairShare, JobHandlers, onStalledOut, QueueProcessor } from '@app/queue';
import { ConnectorEnv } from '../../connector-env';
import { isReauthRequired as isReauth } from '../../document-system/document-system.exception';
import { SYNC_JOBS, SYNC_QUEUE, SyncJobName, SyncJobs, syncSlots } from '../sync.jobs';
import { FailedSteps } from './failed-steps';
import { StartRunStep } from './start-run.step';
import { StepJobs } from './step-jobs';
import { SyncScheduler } from './sync-scheduler';
import { UnselectedSources } from './unselected-sources';

/** Why a job Bull failed in its stalled check did not finish: a step's files say it, as its run's error does for a start. */
export const STEP_STALLED_OUT = 'The sync step did not finish: the worker running it stopped, each time it was tried';

/**
 * Runs the sync queue's jobs in worker processes (PROCESS_ROLE worker or all), whose SYNC_SLOTS join the
 * queue's fair share; a run's jobs hold a slot of their tenant's until they end for good. Thin: validate, delegate.
 */
@Injectable()
export class SyncProcessor extends QueueProcessor<SyncJobs> {
  private readonly logger = new Logger(SyncProcessor.name);

  constructor(
    @InjectQueue(SYNC_QUEUE) private readonly syncQueue: Queue,
    @InjectFairShare(SYNC_QUEUE) private readonly fairShare: FairShare,
    private readonly env: ConnectorEnv,
    private readonly outages: DatabaseOutages,
    private readonly startRunStep: StartRunStep,
    private readonly failedSteps: FailedSteps,
    private readonly steps: StepJobs,
    private readonly scheduler: SyncScheduler,
    private readonly unselected: UnselectedSources,
  ) {
    super(syncQueue, SYNC_JOBS);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Before taking jobs: a worker started again after a step ended the last one fails that job in its first stalled check.
    await onStalledOut(this.syncQueue, (jobId) => this.stalledOut(jobId));
    super.onApplicationBootstrap();
    await this.fairShare.serve(syncSlots(this.env.SYNC_SLOTS));
  }

  /**
   * A job Bull failed because each worker that held it stopped is given up like a job's last failed attempt: its
   * run goes on without the step (or, for a start, ends Failed). Bull keeps it failed, so the sweep cannot add it
   * again, and its run would stay Running. Every process hears it; the first to settle the step wins.
   */
  private stalledOut(jobId: string): void {
    this.outages
      // A domain error: a file's reason in the run's files is its message.
      .hold(() => this.giveUpStalledOut(jobId, new DomainException(500, 'SYNC_STEP_STALLED_OUT', STEP_STALLED_OUT)))
      .catch((error: Error) => this.logger.error({ jobId, error: error.message }, 'stalled-out sync job not given up'));
  }

  protected handlers(): JobHandlers<SyncJobs> {
    return {
      [SyncJobName.StartRun]: {
        concurrency: 2,
        fairShare: this.fairShare,
        isFinal: isReauth,
        around: (work) => this.outages.hold(work),
        run: ({ syncRunId }) => this.startRunStep.start(syncRunId),
        giveUp: ({ syncRunId }, error) => this.failedSteps.startFailed(syncRunId, error),
      },
      ...this.steps.handlers(),
      [SyncJobName.Sweep]: { concurrency: 1, run: () => this.scheduler.sweep() },
      [SyncJobName.SettleUnselected]: {
        // It may fill every slot of this process, as a step may: the fair share admits no more than the slots.
        concurrency: this.env.SYNC_SLOTS,
        fairShare: this.fairShare,
        around: (work) => this.outages.hold(work),
        run: ({ dataSourceId }) => this.settleUnselected(dataSourceId),
      },
    };
  }

  /**
   * An outage fails the job, which Bull tries again (then the sweep, once it failed for good); a data source that
   * cannot be settled for a reason of its own (its blobs, say) waits for the next sweep.
   */
  private async settleUnselected(dataSourceId: string): Promise<void> {
    await this.unselected.settle(dataSourceId).catch((error: Error) => {
      if (isInfrastructureError(error)) throw error;
      this.logger.warn(
        { dataSourceId, error: error.message },
        'emptied selection not settled; the next sweep tries again',
      );
    });
  }
}
