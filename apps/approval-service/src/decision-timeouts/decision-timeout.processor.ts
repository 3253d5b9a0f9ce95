import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { validJobData } from '@app/queue';
import { DECISION_TIMEOUT_QUEUE, DecisionTimeoutJob } from './decision-timeout.jobs';
import { DecisionTimeoutService } from './decision-timeout.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers. */
@Processor(DECISION_TIMEOUT_QUEUE)
export class DecisionTimeoutProcessor {
  constructor(private readonly timeouts: DecisionTimeoutService) {}

  @Process({ concurrency: 10 })
  async handle(job: Job): Promise<void> {
    const { approvalId } = await validJobData(job, DecisionTimeoutJob);
    await this.timeouts.timeOutDue([approvalId]);
  }
}
