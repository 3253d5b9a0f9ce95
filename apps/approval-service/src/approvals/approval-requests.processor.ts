import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { createHash } from 'node:crypto';
import { ApprovalRequestJob, SharedQueue } from '@app/contracts/payloads';
import { DomainException } from '@app/errors';
import { DEFAULT_JOB_NAME, echoable, JobHandlers, onStalledOut, QueueProcessor, queueContract } from '@app/queue';
import { ApprovalEnv } from '../approval-env';
import type { AttemptView } from '../delivery/handed-off-attempts';
import { decisionEvent } from '../approval-store/decision-event';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { OutageRider } from '@app/database';
import { FirstAttemptHandOff } from '../delivery/first-attempt-hand-off';
import { DecisionOutboxRepository } from '../outbox/decision-outbox.repository';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalsService, RequestedApproval } from './approvals.service';
import { withAuthTypeOnly, withoutAuthValues } from './auth-values-redaction';
import { DrainInstead, FirstAttemptLine } from './first-attempt-line';
import { IntakeLanes } from './intake-lanes';
import { oversizeReason, oversizedRemains } from './request-size';
import { StalledOutRequests } from './stalled-out-requests';

/**
 * First attempts intake sends at a time: enough to keep the database busy. More only add work in front of the
 * callbacks on this event loop (docs/approval-performance.md has the measurements).
 */
const LANES = 8;
/**
 * Requests in hand: LANES of them sending first attempts when there is no backlog; while intake drains one,
 * requests only stored, each in a moment. 32 drained a little faster, at 10 ms more p99 callback → decision
 * (docs/approval-performance.md, "A backlog in the request queue").
 */
const REQUESTS_IN_HAND = 16;
/** Requests waiting from which intake drains the queue: under a second of intake (250–400 a second). */
const DRAIN_FROM_WAITING = 200;
/**
 * First attempts waiting in the line of a process, at most: several seconds of sending (250–400 a second),
 * far from what the stalled-delivery sweeper waits for. Past it, the fair share sends them.
 */
const MAX_IN_LINE = 2000;

/**
 * The agent runtime's way in. A request that fails validation is final: the job fails with the
 * validation message (no retry) and an `InvalidRequest` decision tells the runtime; so does one larger than a REST
 * body may be, before its data is validated, and its job keeps only its ids. A request that
 * meets an outage of the database is held (the job keeps its lock) until it is back, never failed:
 * the runtime's jobs have one attempt. Taking a request in waits on its receiver for at most a moment
 * (FirstAttemptHandOff.handOff), except while a backlog waits (IntakeLanes): then the request is only stored and
 * its first attempt waits in its tenant's line (FirstAttemptLine), so the queue ahead of another tenant's
 * request empties several times faster.
 */
/** The runtime adds its requests without a job name (Bull's default). */
const REQUEST_JOBS = queueContract(SharedQueue.ApprovalRequests, { [DEFAULT_JOB_NAME]: ApprovalRequestJob });
type RequestJobs = typeof REQUEST_JOBS.payloads;
type TakenRequest = { approvalId: string; created: boolean };
/** What intake does with a stored Pending approval's first attempt. */
type FirstAttempt = (approval: RequestedApproval, fresh?: AttemptView) => Promise<void>;

@Injectable()
export class ApprovalRequestsProcessor extends QueueProcessor<RequestJobs> implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ApprovalRequestsProcessor.name);
  private readonly line: FirstAttemptLine;
  private readonly lanes: IntakeLanes;

  constructor(
    @InjectQueue(SharedQueue.ApprovalRequests) private readonly requestQueue: Queue,
    private readonly approvals: ApprovalsService,
    private readonly outbox: DecisionOutboxRepository,
    private readonly relay: DecisionRelay,
    private readonly firstAttempts: FirstAttemptHandOff,
    private readonly gate: CallbacksFirstGate,
    private readonly outage: OutageRider,
    private readonly stalledOut: StalledOutRequests,
    env: ApprovalEnv,
  ) {
    super(requestQueue, REQUEST_JOBS);
    // Half of what the sweeper waits for, at least, even with a webhook timeout of 0.
    const staleAfterMs = env.DELIVERY_STRANDED_AFTER_MS / 2;
    this.line = new FirstAttemptLine({ lanes: LANES, maxWaiting: MAX_IN_LINE, staleAfterMs });
    this.lanes = new IntakeLanes(requestQueue, {
      drainFrom: DRAIN_FROM_WAITING,
      waitingHere: () => this.line.waitingHere,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    // Before taking jobs: a worker runs its first stalled check as it starts.
    await onStalledOut(this.requestQueue, (jobId) => this.settleStalledOut(jobId));
    super.onApplicationBootstrap();
  }

  /** First attempts still in the line go to the fair share before the queues close. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.line.close();
  }

  protected handlers(): JobHandlers<RequestJobs> {
    return {
      [DEFAULT_JOB_NAME]: {
        concurrency: REQUESTS_IN_HAND,
        around: async <R>(work: () => Promise<R>, job: Job) => {
          await this.gate.turn();
          const tooLarge = await this.outage.ride(() => oversizeReason(job));
          return tooLarge ? this.refuse(job, tooLarge, oversizedRemains(job.data)) : work();
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

  /**
   * Without a backlog, in a lane: stored, then its first attempt sent inline (FirstAttemptHandOff.handOff). While
   * intake drains one, stored, its first attempt put in its tenant's line, and the job done.
   */
  private async take(value: ApprovalRequestJob, job: Job): Promise<TakenRequest> {
    if (!this.lanes.draining) {
      const inline: FirstAttempt = (approval, fresh) => this.firstAttempts.handOff(approval, fresh);
      try {
        return await this.line.inLane(value.tenantId, () => this.store(value, job, inline), this.lanes.drainStarts);
      } catch (error) {
        if (!(error instanceof DrainInstead)) throw error;
      }
    }
    return this.store(value, job, (approval, fresh) =>
      // A redelivered job's attempt (no fresh approval) goes to the fair share at once, as handOff does.
      fresh
        ? this.line.add(approval.tenantId, (queued) => this.sendLined(approval, fresh, queued))
        : this.firstAttempts.handOff(approval),
    );
  }

  /** A first attempt from the line: like a request taken in, it lets the callbacks in hand go first. */
  private async sendLined(approval: RequestedApproval, fresh: AttemptView, queued: boolean): Promise<void> {
    if (!queued) await this.gate.turn();
    await this.firstAttempts.handOff(approval, fresh, { inline: !queued });
  }

  private async store(value: ApprovalRequestJob, job: Job, firstAttempt: FirstAttempt): Promise<TakenRequest> {
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
      if (approval.status === 'Pending') await firstAttempt(approval, fresh);
      return { approvalId: approval.id, created };
    } catch (error) {
      if (error instanceof DomainException && error.statusCode === 400) return this.refuse(job, error.message);
      this.logger.error({ jobId: job.id, error: (error as Error).message }, 'approval request failed');
      throw error;
    }
  }

  /**
   * A job Bull failed in its stalled check, without this processor's handler (StalledOutRequests says what it
   * keeps, and whether it is refused). Every process hears it; each step is idempotent.
   */
  private settleStalledOut(jobId: string): void {
    const settle = async () => {
      const job = await this.outage.ride(() => this.requestQueue.getJob(jobId));
      // Gone (removed on failure), or tried again by the runtime: nothing left to settle.
      if (!job || !(await job.isFailed())) return;
      const { kept, refusal, take } = await this.outage.ride(() => this.stalledOut.settle(job));
      if (refusal) return this.refusal(job, refusal, kept);
      if (take && !(await this.takeStalledOut(job, take))) return;
      if (kept !== job.data) await this.outage.ride(() => job.update(kept));
    };
    settle().catch((error: Error) =>
      this.logger.error({ jobId, error: error.message }, 'stalled-out approval request not settled'),
    );
  }

  /** Stores a stalled-out request as intake would, its first attempt queued; false when it is refused instead. */
  private async takeStalledOut(job: Job, value: ApprovalRequestJob): Promise<boolean> {
    try {
      await this.outage.ride(() =>
        this.approvals.request(value.tenantId, value, {
          queueFirstAttempt: true,
          onConflict: 'keepFirst',
          holdThroughOutage: (write) => this.outage.ride(write),
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof DomainException && error.statusCode === 400)) throw error;
      await this.refusal(job, error.message, withAuthTypeOnly(job.data));
      return false;
    }
  }

  /** The approval holds them encrypted now: the job's copy in Redis goes. */
  private async forgetAuthValues(job: Job): Promise<void> {
    const redacted = withoutAuthValues(job.data);
    if (redacted !== job.data) await this.outage.ride(() => job.update(redacted));
  }

  /**
   * `kept`: what the failed job keeps in Redis, and its event echoes; by default the request with, of its
   * authentication (of whatever shape), only its type.
   */
  private async refuse(job: Job, reason: string, kept: unknown = withAuthTypeOnly(job.data)): Promise<never> {
    await this.refusal(job, reason, kept);
    await job.discard();
    throw new Error(`Invalid approval request: ${reason}`);
  }

  /** The InvalidRequest decision of a refused job, and what its job keeps. */
  private async refusal(job: Job, reason: string, kept: unknown): Promise<void> {
    const data = (kept ?? {}) as Partial<ApprovalRequestJob>;
    // An event with no approval behind it, written once per id.
    const event = decisionEvent({
      id: invalidRequestId(job),
      tenantId: echoable(data.tenantId),
      executionId: echoable(data.executionId),
      stepId: echoable(data.stepId),
      status: 'InvalidRequest',
      comment: echoable(reason.slice(0, 2000)),
      decidedBy: null,
      output: null,
      decidedAt: new Date(),
    });
    // The event first: a job redelivered before its data is replaced is refused for the same reason.
    await this.outage.ride(() => this.outbox.add([event]));
    if (kept !== job.data) await this.outage.ride(() => job.update(kept));
    await this.relay.publish(event);
    this.logger.warn({ jobId: job.id, reason }, 'invalid approval request');
  }
}

/** A stable id for the event of a refused job, so a redelivered job cannot emit a second one. */
function invalidRequestId(job: Job): string {
  const hex = createHash('sha256').update(`invalid-request:${job.queue.name}:${job.id}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
