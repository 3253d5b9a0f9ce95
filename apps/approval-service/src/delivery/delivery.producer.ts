import { Injectable } from '@nestjs/common';
import { DEFAULT_JOB_NAME, FairShare, fairJob, InjectFairShare } from '@app/queue';
import { DELIVERY_JOB_OPTIONS, DELIVERY_JOBS, DELIVERY_QUEUE } from './delivery.jobs';

/**
 * The only place that adds delivery attempts: to the delivery queue's fair share, which hands each to Bull
 * when a slot is its tenant's. The job id makes an attempt's job unique.
 */
@Injectable()
export class DeliveryProducer {
  constructor(@InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare) {}

  async attempt(approvalId: string, attempt: number, tenantId: string, delayMs = 0): Promise<void> {
    const job = fairJob(
      DELIVERY_JOBS,
      DEFAULT_JOB_NAME,
      `${approvalId}:${attempt}`,
      { approvalId, attempt, tenantId },
      DELIVERY_JOB_OPTIONS,
    );
    await this.fairShare.add(tenantId, job, delayMs);
  }

  /** An extra attempt of an approval awaiting its decision; `reminder` when it is one. */
  async redeliver(approvalId: string, attempt: number, tenantId: string, reminder?: number): Promise<void> {
    const data = { approvalId, attempt, tenantId, redelivery: true, ...(reminder ? { reminder } : {}) };
    await this.fairShare.add(
      tenantId,
      fairJob(DELIVERY_JOBS, DEFAULT_JOB_NAME, `${approvalId}:${attempt}`, data, DELIVERY_JOB_OPTIONS),
    );
  }

  /** Drops an attempt's delayed job that is no longer needed; one already on its way is left to find its attempt logged. */
  async withdraw(approvalId: string, attempt: number): Promise<void> {
    await this.fairShare.withdraw(`${approvalId}:${attempt}`);
  }
}
