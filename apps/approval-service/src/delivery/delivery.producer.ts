import { Injectable } from '@nestjs/common';
import { DEFAULT_JOB_NAME, FairShare, fairJob, InjectFairShare } from '@app/queue';
import type { QuietApproval } from '../approval-store/approval-rows';
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

  /**
   * Sends stalled approvals on from their last logged attempt (the first when none is): the attempt's job
   * finds it logged and goes on as it would have (a retry, DeliveryFailed, or Delivered), or sends it. An
   * attempt whose job is still here (waiting, delayed or running) is not added twice.
   */
  async resume(stalled: QuietApproval[]): Promise<void> {
    await this.fairShare.addMany(
      stalled.map(({ approvalId, attempt, tenantId }) => {
        const number = Math.max(1, attempt);
        const data = { approvalId, attempt: number, tenantId };
        const job = fairJob(DELIVERY_JOBS, DEFAULT_JOB_NAME, `${approvalId}:${number}`, data, DELIVERY_JOB_OPTIONS);
        return { tenantId, job };
      }),
    );
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
