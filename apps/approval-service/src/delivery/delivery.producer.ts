import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { addJob, DEFAULT_JOB_NAME } from '@app/queue';
import {
  DELIVERY_JOB_OPTIONS,
  DELIVERY_JOBS,
  DELIVERY_QUEUE,
  DeliveryAttemptJob,
  HELD_ATTEMPT_DELAY_MS,
} from './delivery.jobs';

/** The only place that adds delivery attempts. The job id makes an attempt's job unique. */
@Injectable()
export class DeliveryProducer {
  constructor(@InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue<DeliveryAttemptJob>) {}

  async attempt(approvalId: string, attempt: number, delayMs = 0, tenantId?: string): Promise<void> {
    await addJob(
      this.queue,
      DELIVERY_JOBS,
      DEFAULT_JOB_NAME,
      { approvalId, attempt, ...(tenantId ? { tenantId } : {}) },
      { ...DELIVERY_JOB_OPTIONS, jobId: `${approvalId}:${attempt}`, delay: delayMs },
    );
  }

  /** An extra attempt of an approval awaiting its decision; `reminder` when it is one. */
  async redeliver(approvalId: string, attempt: number, tenantId: string, reminder?: number): Promise<void> {
    await addJob(
      this.queue,
      DELIVERY_JOBS,
      DEFAULT_JOB_NAME,
      { approvalId, attempt, tenantId, redelivery: true, ...(reminder ? { reminder } : {}) },
      { ...DELIVERY_JOB_OPTIONS, jobId: `${approvalId}:${attempt}` },
    );
  }

  /** Drops an attempt's delayed job that is no longer needed; one already running is left to find its attempt logged. */
  async withdraw(approvalId: string, attempt: number): Promise<void> {
    const job = await this.queue.getJob(`${approvalId}:${attempt}`);
    if (job && (await job.isDelayed())) await job.remove();
  }

  /** Puts an attempt back for a while: its tenant has its share of this worker's slots in use. */
  async putBack(job: DeliveryAttemptJob, tenantId: string): Promise<void> {
    const held = (job.held ?? 0) + 1;
    const delay = Math.min(HELD_ATTEMPT_DELAY_MS.first * 2 ** (held - 1), HELD_ATTEMPT_DELAY_MS.last);
    await addJob(
      this.queue,
      DELIVERY_JOBS,
      DEFAULT_JOB_NAME,
      {
        approvalId: job.approvalId,
        attempt: job.attempt,
        tenantId,
        held,
        ...(job.redelivery ? { redelivery: true } : {}),
        ...(job.reminder ? { reminder: job.reminder } : {}),
      },
      { ...DELIVERY_JOB_OPTIONS, jobId: `${job.approvalId}:${job.attempt}:held-${held}`, delay },
    );
  }
}
