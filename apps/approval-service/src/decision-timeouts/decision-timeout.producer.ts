import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, ContractQueue, DEFAULT_JOB_NAME } from '@app/queue';
import {
  DEADLINE_MARGIN_MS,
  DECISION_TIMEOUT_JOB_OPTIONS,
  DECISION_TIMEOUT_QUEUE,
  DecisionTimeoutJobs,
} from './decision-timeout.jobs';

/** The only place that adds decision-deadline jobs. */
@Injectable()
export class DecisionTimeoutProducer {
  constructor(@InjectQueue(DECISION_TIMEOUT_QUEUE) private readonly queue: ContractQueue<DecisionTimeoutJobs>) {}

  async schedule(approvalId: string, afterSeconds: number): Promise<void> {
    await addJob(
      this.queue,
      DEFAULT_JOB_NAME,
      { approvalId },
      { ...DECISION_TIMEOUT_JOB_OPTIONS, jobId: approvalId, delay: afterSeconds * 1000 + DEADLINE_MARGIN_MS },
    );
  }
}
