import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DatabaseOutages } from '@app/database';
import { JobHandlers, QueueProcessor } from '@app/queue';
import { isReauthRequired as isReauth } from '../../document-system/document-system.exception';
import { SYNC_JOBS, SYNC_QUEUE, SyncJobName, SyncJobs } from '../sync.jobs';
import { FailedSteps } from './failed-steps';
import { StartRunStep } from './start-run.step';
import { StepJobs } from './step-jobs';
import { SyncScheduler } from './sync-scheduler';

/** Runs the sync queue's jobs in worker processes (PROCESS_ROLE worker or all). Thin: validate, delegate. */
@Injectable()
export class SyncProcessor extends QueueProcessor<SyncJobs> {
  constructor(
    @InjectQueue(SYNC_QUEUE) queue: Queue,
    private readonly outages: DatabaseOutages,
    private readonly startRunStep: StartRunStep,
    private readonly failedSteps: FailedSteps,
    private readonly steps: StepJobs,
    private readonly scheduler: SyncScheduler,
  ) {
    super(queue, SYNC_JOBS);
  }

  protected handlers(): JobHandlers<SyncJobs> {
    return {
      [SyncJobName.StartRun]: {
        concurrency: 2,
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
