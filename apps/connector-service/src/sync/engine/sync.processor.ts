import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DatabaseOutages } from '@app/database';
import { FairShare, InjectFairShare, JobHandlers, QueueProcessor } from '@app/queue';
import { ConnectorEnv } from '../../connector-env';
import { isReauthRequired as isReauth } from '../../document-system/document-system.exception';
import { SYNC_JOBS, SYNC_QUEUE, SyncJobName, SyncJobs, syncSlots } from '../sync.jobs';
import { FailedSteps } from './failed-steps';
import { StartRunStep } from './start-run.step';
import { StepJobs } from './step-jobs';
import { SyncScheduler } from './sync-scheduler';

/**
 * Runs the sync queue's jobs in worker processes (PROCESS_ROLE worker or all), whose SYNC_SLOTS join the
 * queue's fair share; a run's jobs hold a slot of their tenant's until they end for good. Thin: validate, delegate.
 */
@Injectable()
export class SyncProcessor extends QueueProcessor<SyncJobs> {
  constructor(
    @InjectQueue(SYNC_QUEUE) queue: Queue,
    @InjectFairShare(SYNC_QUEUE) private readonly fairShare: FairShare,
    private readonly env: ConnectorEnv,
    private readonly outages: DatabaseOutages,
    private readonly startRunStep: StartRunStep,
    private readonly failedSteps: FailedSteps,
    private readonly steps: StepJobs,
    private readonly scheduler: SyncScheduler,
  ) {
    super(queue, SYNC_JOBS);
  }

  async onApplicationBootstrap(): Promise<void> {
    super.onApplicationBootstrap();
    await this.fairShare.serve(syncSlots(this.env.SYNC_SLOTS));
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
    };
  }
}
