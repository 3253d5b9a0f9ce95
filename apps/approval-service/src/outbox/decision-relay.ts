import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import type { Queue } from 'bull';
import { ApprovalDecisionEvent, SharedQueue } from '@app/contracts/payloads';
import { OutageRider, OutboxLeftovers, Transactions } from '@app/database';
import { settlesWithin } from '@app/outbound';
import { addJobs, JOB_ADD_DEADLINE_MS } from '@app/queue';
import { decisionEvent } from '../approval-store/decision-event';
import { StatementBatcher } from '../database/statement-batcher';
import { ApprovalMetrics } from '../metrics/approval-metrics';
import { DecisionOutboxRepository, OutboxRow } from './decision-outbox.repository';

const BATCH = 200;
/** A consumed decision job is kept at most this long and this many deep: Redis keeps no history of decisions. */
export const DECISION_JOB_OPTIONS = { removeOnComplete: { age: 3600, count: 1000 } } as const;
/** Rows younger than this are left to the writer that is publishing them right now. */
const LEFTOVER_AGE_MS = 2000;
/**
 * Published decisions are marked together this often: one statement serves every decision of the stretch
 * (docs/approval-performance.md). Well under LEFTOVER_AGE_MS, so a relay never takes a published row for a
 * crashed writer's.
 */
const MARK_EVERY_MS = 100;

/**
 * Publishes decision events to `approval-decisions` (jobId = approvalId). The writer of a decision
 * publishes it at once after its commit; a poller publishes what a crashed writer left in the outbox.
 * Either way the job id makes a second publish of the same decision a no-op in Bull.
 */
@Injectable()
export class DecisionRelay implements OnModuleDestroy {
  private readonly logger = new Logger(DecisionRelay.name);
  private readonly toMark = new Set<string>();
  private marking?: Promise<void>;
  private markNow?: () => void;
  private closing = false;
  private readonly leftovers: OutboxLeftovers<OutboxRow>;
  /** Marking serves every tenant's decisions: it runs in the relay's own context, never in a request's (PoolTurns). */
  private readonly home = new AsyncResource('DecisionRelay');

  constructor(
    private readonly outbox: DecisionOutboxRepository,
    transactions: Transactions,
    @InjectQueue(SharedQueue.ApprovalDecisions) private readonly decisionsQueue: Queue,
    private readonly outage: OutageRider,
    private readonly metrics: ApprovalMetrics,
  ) {
    this.leftovers = new OutboxLeftovers({
      name: 'decision relay',
      table: outbox,
      transactions,
      publish: (rows) => this.relayLeftovers(rows.map(eventOf)),
      batch: BATCH,
      leftoverAgeMs: LEFTOVER_AGE_MS,
      outage,
    });
  }

  /** The decisions committed together go to Redis in one round trip. */
  private readonly publishing = new StatementBatcher(async (events: ApprovalDecisionEvent[]) => {
    await this.enqueue(events);
    return events.map(() => undefined);
  });

  /** Publishes a committed decision now; marking it published is batched (once closing, its caller waits for it). */
  async publish(event: ApprovalDecisionEvent): Promise<void> {
    try {
      await this.publishing.submit(event);
    } catch (error) {
      // Counted by the relay that publishes it.
      this.logger.warn(
        { approvalId: event.approvalId, error: (error as Error).message },
        'decision left for the relay',
      );
      return;
    }
    this.metrics.decided(event.outcome);
    if (this.closing) return this.mark([event.approvalId]);
    this.toMark.add(event.approvalId);
    this.marking ??= this.home.runInAsyncScope(() => this.markSoon());
  }

  /**
   * Publishes as `publish` does, for an HTTP answer that must not wait out a Redis outage: the decision is
   * committed, so past `ms` its caller goes on. The publish goes on too (ioredis holds it until Redis is
   * back) and marks the row only once Redis took it; should it fail, the relay publishes the row.
   */
  async publishWithin(event: ApprovalDecisionEvent, ms = JOB_ADD_DEADLINE_MS): Promise<void> {
    await settlesWithin(this.publish(event), ms);
  }

  /** Decisions whose writers never published them (a crash, a lost reply): counted here, once Redis has them. */
  private async relayLeftovers(events: ApprovalDecisionEvent[]): Promise<void> {
    await this.enqueue(events);
    for (const event of events) this.metrics.decided(event.outcome);
  }

  /**
   * Publishes again events that Redis lost after their rows were marked (an operator's replay): the same job
   * name, payload and id as at first, so an event whose job Bull still holds is left as it is. No metrics:
   * these decisions were counted when they were made.
   */
  republish(events: ApprovalDecisionEvent[]): Promise<void> {
    return this.enqueue(events);
  }

  /** The ids among `approvalIds` whose decision job Bull holds (waiting, active, or consumed and kept). */
  async held(approvalIds: string[]): Promise<Set<string>> {
    const jobs = await Promise.all(approvalIds.map((id) => this.decisionsQueue.getJob(id)));
    return new Set(approvalIds.filter((_, index) => jobs[index]));
  }

  /** Relays what crashed writers left, now and then every `everyMs` (worker processes). */
  poll(everyMs: number): void {
    this.leftovers.poll(everyMs);
  }

  async onModuleDestroy(): Promise<void> {
    this.leftovers.stop();
    // Requests and jobs still end after this (the database closes last): from now on each publish marks
    // its own decision, and its caller waits for it, so nothing joins the batch and this wait ends.
    this.closing = true;
    this.markNow?.();
    while (this.marking) await this.marking;
  }

  private async markSoon(): Promise<void> {
    if (!this.closing)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, MARK_EVERY_MS);
        this.markNow = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    this.markNow = undefined;
    const ids = [...this.toMark];
    this.toMark.clear();
    try {
      await this.mark(ids);
    } finally {
      this.marking = undefined;
      if (this.toMark.size) this.marking = this.markSoon();
    }
  }

  private async mark(ids: string[]): Promise<void> {
    const started = Date.now();
    try {
      await this.outbox.markPublished(ids);
    } catch (error) {
      if (!this.outage.report(error, started))
        this.logger.warn(
          { error: (error as Error).message },
          'published decisions not marked; the relay will republish them (a no-op while Bull keeps their jobs)',
        );
    }
  }

  private async enqueue(events: ApprovalDecisionEvent[]): Promise<void> {
    await addJobs(
      this.decisionsQueue,
      events.map((event) => ({
        name: 'decision',
        data: event,
        opts: { ...DECISION_JOB_OPTIONS, jobId: event.approvalId },
      })),
    );
  }
}

/**
 * A leftover's event: the one it stores, or the one built from its decided approval. A decided approval
 * never moves again, so this is the event its writer built and may have published already.
 */
export function eventOf(row: OutboxRow): ApprovalDecisionEvent {
  return row.payload === null ? decisionEvent(row.decided) : row.payload;
}
