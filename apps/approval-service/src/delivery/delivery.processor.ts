import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { validJobData } from '@app/queue';
import { DELIVERY_QUEUE, DeliveryAttemptJob } from './delivery.jobs';
import { DeliveryService } from './delivery.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers. */
@Processor(DELIVERY_QUEUE)
export class DeliveryProcessor {
  constructor(private readonly delivery: DeliveryService) {}

  @Process({ concurrency: 50 })
  async handle(job: Job): Promise<void> {
    const { approvalId, attempt } = await validJobData(job, DeliveryAttemptJob);
    await this.delivery.attempt(approvalId, attempt);
  }
}
