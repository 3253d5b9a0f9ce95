import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DEFAULT_JOB_NAME, JobHandlers, QueueProcessor } from '@app/queue';
import { DECISION_TIMEOUT_JOBS, DECISION_TIMEOUT_QUEUE, DecisionTimeoutJobs } from './decision-timeout.jobs';
import { DecisionTimeoutService } from './decision-timeout.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers. */
@Injectable()
export class DecisionTimeoutProcessor extends QueueProcessor<DecisionTimeoutJobs> {
  constructor(
    @InjectQueue(DECISION_TIMEOUT_QUEUE) queue: Queue,
    private readonly timeouts: DecisionTimeoutService,
  ) {
    super(queue, DECISION_TIMEOUT_JOBS);
  }

  protected handlers(): JobHandlers<DecisionTimeoutJobs> {
    return {
      [DEFAULT_JOB_NAME]: { concurrency: 10, run: ({ approvalId }) => this.timeouts.timeOutDue([approvalId]) },
    };
  }
}
