import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DEFAULT_JOB_NAME, FairJob, FairShare, fairJob, InjectFairShare } from '@app/queue';
import type { StalledApproval } from '../approval-store/approval-rows';
import { DeliveryAttemptJob, DELIVERY_JOB_OPTIONS, DELIVERY_JOBS, DELIVERY_QUEUE } from './delivery.jobs';
import { DeliveryTarget, receiverOf } from './receivers';

/**
 * The only place that adds delivery attempts: to the delivery queue's fair share, which hands each to Bull
 * when a slot is its tenant's and its receiver's (receivers.ts). The job id makes an attempt's job unique.
 */
@Injectable()
export class DeliveryProducer {
  constructor(
    @InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
  ) {}

  async attempt(approvalId: string, attempt: number, to: DeliveryTarget, delayMs = 0, again = false): Promise<void> {
    const data = { approvalId, attempt, tenantId: to.tenantId, ...(again ? { again } : {}) };
    await this.fairShare.add(to.tenantId, this.job(data, to), delayMs);
  }

  /**
   * Sends stalled approvals on from their last logged attempt (the first when none is): the attempt's job
   * finds it logged and goes on as it would have (a retry, DeliveryFailed, or Delivered), or sends it. An
   * approval whose next attempt is still here is left to it; an attempt's job that Bull keeps as failed
   * (its tries spent) is dropped first, or Bull would take the new one for it and run nothing.
   */
  async resume(stalled: StalledApproval[]): Promise<void> {
    const nextWaits = await Promise.all(
      stalled.map((a) => (a.attempt > 0 ? this.fairShare.has(`${a.approvalId}:${a.attempt + 1}`) : false)),
    );
    const items = stalled
      .filter((_, i) => !nextWaits[i])
      .map((approval) => {
        const { approvalId, attempt, tenantId } = approval;
        return { tenantId, job: this.job({ approvalId, attempt: Math.max(1, attempt), tenantId }, approval) };
      });
    await Promise.all(items.map(({ job }) => this.dropFailed(job.id)));
    await this.fairShare.addMany(items);
  }

  private async dropFailed(jobId: string): Promise<void> {
    const job = await this.queue.getJob(jobId);
    if (job && (await job.isFailed())) await job.remove();
  }

  /** An extra attempt of an approval awaiting its decision; `reminder` when it is one. */
  async redeliver(approvalId: string, attempt: number, to: DeliveryTarget, reminder?: number): Promise<void> {
    const data = { approvalId, attempt, tenantId: to.tenantId, redelivery: true, ...(reminder ? { reminder } : {}) };
    await this.fairShare.add(to.tenantId, this.job(data, to));
  }

  /** Drops an attempt's delayed job that is no longer needed; one already on its way is left to find its attempt logged. */
  async withdraw(approvalId: string, attempt: number): Promise<void> {
    await this.fairShare.withdraw(`${approvalId}:${attempt}`);
  }

  /** An attempt's job, in its receiver's lane of its tenant's share. */
  private job(data: DeliveryAttemptJob, to: DeliveryTarget): FairJob {
    const job = fairJob(
      DELIVERY_JOBS,
      DEFAULT_JOB_NAME,
      `${data.approvalId}:${data.attempt}`,
      data,
      DELIVERY_JOB_OPTIONS,
    );
    return { ...job, lane: receiverOf(to.webhookUrl) };
  }
}
