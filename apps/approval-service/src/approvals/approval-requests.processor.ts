import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { createHash } from 'node:crypto';
import { ApprovalRequestJob, SharedQueue } from '@app/contracts';
import { DomainException } from '@app/errors';
import { echoable, jobDataProblems } from '@app/queue';
import { decisionEvent } from '../approval-store/decision-event';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { OutageRider } from '../database/outage-rider';
import { DeliveryService } from '../delivery/delivery.service';
import { DecisionOutboxRepository } from '../outbox/decision-outbox.repository';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalsService } from './approvals.service';
import { withoutAuthValues } from './auth-values-redaction';

/**
 * The agent runtime's way in. A request that fails validation is final: the job fails with the
 * validation message (no retry) and an `InvalidRequest` decision tells the runtime. A request that
 * meets an outage of the database is held (the job keeps its lock) until it is back, never failed:
 * the runtime's jobs have one attempt. Taking a request in never waits on its receiver.
 */
@Processor(SharedQueue.ApprovalRequests)
export class ApprovalRequestsProcessor {
  private readonly logger = new Logger(ApprovalRequestsProcessor.name);

  constructor(
    private readonly approvals: ApprovalsService,
    private readonly outbox: DecisionOutboxRepository,
    private readonly relay: DecisionRelay,
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
    private readonly outage: OutageRider,
  ) {}

  // Enough requests in flight to keep the database busy. More only add work in front of the callbacks on
  // this event loop (docs/approval-performance.md has the measurements).
  @Process({ concurrency: 8 })
  async handle(job: Job): Promise<{ approvalId: string; created: boolean }> {
    await this.gate.turn();
    const { value, problems } = jobDataProblems(ApprovalRequestJob, job.data);
    if (problems.length) return this.refuse(job, problems.join(' | '));
    try {
      // A redelivered job finds the approval and hands its first attempt off again (attempts are idempotent).
      const { approval, created, fresh } = await this.outage.ride(() =>
        this.approvals.request(value.tenantId, value, { queueFirstAttempt: false, onConflict: 'keepFirst' }),
      );
      await this.forgetAuthValues(job);
      if (approval.status === 'Pending')
        await this.outage.ride(() => this.delivery.handOff(approval.id, value.tenantId, fresh));
      return { approvalId: approval.id, created };
    } catch (error) {
      if (error instanceof DomainException && error.statusCode === 400) return this.refuse(job, error.message);
      this.logger.error({ jobId: job.id, error: (error as Error).message }, 'approval request failed');
      // A job that fails for good stays in Redis (the runtime keeps failed jobs): not with auth values in it.
      // One that will be retried keeps them, since its approval may not be stored yet.
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await this.forgetAuthValues(job).catch(() => undefined);
      throw error;
    }
  }

  /** The approval holds them encrypted now: the job's copy in Redis goes. */
  private async forgetAuthValues(job: Job): Promise<void> {
    const redacted = withoutAuthValues(job.data);
    if (redacted !== job.data) await this.outage.ride(() => job.update(redacted));
  }

  private async refuse(job: Job, reason: string): Promise<never> {
    const data = (job.data ?? {}) as Partial<ApprovalRequestJob>;
    // An event with no approval behind it, written once per id.
    const event = decisionEvent({
      id: invalidRequestId(job),
      tenantId: echoable(data.tenantId),
      executionId: echoable(data.executionId),
      stepId: echoable(data.stepId),
      status: 'InvalidRequest',
      comment: echoable(reason).slice(0, 2000),
      decidedBy: null,
      decidedAt: new Date(),
    });
    await this.forgetAuthValues(job);
    await this.outage.ride(() => this.outbox.add([event]));
    await this.relay.publish(event);
    this.logger.warn({ jobId: job.id, reason }, 'invalid approval request');
    await job.discard();
    throw new Error(`Invalid approval request: ${reason}`);
  }
}

/** A stable id for the event of a refused job, so a redelivered job cannot emit a second one. */
function invalidRequestId(job: Job): string {
  const hex = createHash('sha256').update(`invalid-request:${job.queue.name}:${job.id}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
