import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DELIVERY_JOB_OPTIONS, DELIVERY_QUEUE, DeliveryAttemptJob } from './delivery.jobs';

/** The only place that adds delivery attempts. The job id makes an attempt's job unique. */
@Injectable()
export class DeliveryProducer {
  constructor(@InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue<DeliveryAttemptJob>) {}

  async attempt(approvalId: string, attempt: number, delayMs = 0): Promise<void> {
    await this.queue.add({ approvalId, attempt }, { ...DELIVERY_JOB_OPTIONS, jobId: `${approvalId}:${attempt}`, delay: delayMs });
  }
}
