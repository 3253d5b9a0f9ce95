import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { createHash } from 'node:crypto';
import { ApprovalRequestJob, SharedQueue } from '@app/contracts/payloads';
import { DomainException } from '@app/errors';
import { DEFAULT_JOB_NAME, echoable, JobHandlers, QueueProcessor, queueContract } from '@app/queue';
import { decisionEvent } from '../approval-store/decision-event';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { OutageRider } from '@app/database';
import { DeliveryService } from '../delivery/delivery.service';
import { DecisionOutboxRepository } from '../outbox/decision-outbox.repository';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalsService } from './approvals.service';
import { withoutAuthValues } from './auth-values-redaction';

/**
 * The agent runtime's way in. A request that fails validation is final: the job fails with the
 * validation message (no retry) and an `InvalidRequest` decision tells the runtime. A request that
 * meets an outage of the database is held (the job keeps its lock) until it is back, never failed:
 * the runtime's jobs have one attempt. Taking a request in waits on its receiver for at most a moment
 * (DeliveryService.handOff).
 */
/** The runtime adds its requests without a job name (Bull's default). */
const REQUEST_JOBS = queueContract(SharedQueue.ApprovalRequests, { [DEFAULT_JOB_NAME]: ApprovalRequestJob });
type RequestJobs = typeof REQUEST_JOBS.payloads;

@Injectable()
export class ApprovalRequestsProcessor extends QueueProcessor<RequestJobs> {
  private readonly logger = new Logger(ApprovalRequestsProcessor.name);

  constructor(
    @InjectQueue(SharedQueue.ApprovalRequests) queue: Queue,
    private readonly approvals: ApprovalsService,
    private readonly outbox: DecisionOutboxRepository,
    private readonly relay: DecisionRelay,
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
    private readonly outage: OutageRider,
  ) {
    super(queue, REQUEST_JOBS);
  }

  protected handlers(): JobHandlers<RequestJobs> {
    return {
      [DEFAULT_JOB_NAME]: {
        // Enough requests in flight to keep the database busy. More only add work in front of the callbacks
        // on this event loop (docs/approval-performance.md has the measurements).
        concurrency: 8,
        around: async <R>(work: () => Promise<R>) => {
          await this.gate.turn();
          return work();
        },
        run: (value, job) => this.take(value, job),
        refuse: (problems, job) => this.refuse(job, problems.join(' | ')),
        // A job that fails for good stays in Redis (the runtime keeps failed jobs): not with auth values in it.
        // One that will be retried keeps them, since its approval may not be stored yet.
        giveUp: async (_value, error, job) => {
          await this.forgetAuthValues(job).catch(() => undefined);
          throw error;
        },
      },
    };
  }

  private async take(value: ApprovalRequestJob, job: Job): Promise<{ approvalId: string; created: boolean }> {
    try {
      // A redelivered job finds the approval and hands its first attempt off again (attempts are idempotent).
      const { approval, created, fresh } = await this.outage.ride(() =>
        this.approvals.request(value.tenantId, value, {
          queueFirstAttempt: false,
          onConflict: 'keepFirst',
          holdThroughOutage: (write) => this.outage.ride(write),
        }),
      );
      await this.forgetAuthValues(job);
      if (approval.status === 'Pending') await this.delivery.handOff(approval.id, value.tenantId, fresh);
      return { approvalId: approval.id, created };
    } catch (error) {
      if (error instanceof DomainException && error.statusCode === 400) return this.refuse(job, error.message);
      this.logger.error({ jobId: job.id, error: (error as Error).message }, 'approval request failed');
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
      output: null,
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
