import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { ApprovalDecisionEvent, SharedQueue } from '@app/contracts';
import { StatementBatcher } from '../database/statement-batcher';

const BATCH = 200;
/** Rows younger than this are left to the writer that is publishing them right now. */
const LEFTOVER_AGE_MS = 2000;

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
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(SharedQueue.ApprovalDecisions) private readonly decisions: Queue,
  ) {}

  /** The decisions committed together go to Redis in one round trip. */
  private readonly publishing = new StatementBatcher(async (events: ApprovalDecisionEvent[]) => {
    await this.decisions.addBulk(events.map((event) => ({ name: 'decision', data: event, opts: { jobId: event.approvalId, removeOnComplete: false } })));
    return events.map(() => undefined);
  });

  /** Publishes a committed decision now; marking it published is batched. */
  async publish(event: ApprovalDecisionEvent): Promise<void> {
    try {
      await this.publishing.submit(event);
      this.toMark.add(event.approvalId);
      this.marking ??= this.markSoon();
    } catch (error) {
      this.logger.warn({ approvalId: event.approvalId, error: (error as Error).message }, 'decision left for the relay');
    }
  }

  /** Relays leftovers on a timer (worker processes). */
  poll(everyMs: number): void {
    this.timer = setInterval(() => void this.relayLeftovers(), everyMs);
    this.timer.unref();
  }

  async relayLeftovers(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while ((await this.publishBatch()) === BATCH);
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'decision relay pass failed');
    } finally {
      this.polling = false;
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.marking;
  }

  private async markSoon(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const ids = [...this.toMark];
    this.toMark.clear();
    try {
      await this.db.query('UPDATE approval.decision_outbox SET "publishedAt" = now() WHERE "approvalId" = ANY($1::text[]) AND "publishedAt" IS NULL', [ids]);
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'published decisions not marked; the relay will republish them harmlessly');
    } finally {
      this.marking = undefined;
      if (this.toMark.size) this.marking = this.markSoon();
    }
  }

  private publishBatch(): Promise<number> {
    return this.db.transaction(async (manager) => {
      const rows: Array<{ approvalId: string; payload: ApprovalDecisionEvent }> = await manager.query(
        `SELECT "approvalId", payload FROM approval.decision_outbox
         WHERE "publishedAt" IS NULL AND "createdAt" < now() - make_interval(secs => $1)
         ORDER BY "createdAt" LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
        [LEFTOVER_AGE_MS / 1000],
      );
      if (!rows.length) return 0;
      await this.decisions.addBulk(rows.map((r) => ({ name: 'decision', data: r.payload, opts: { jobId: r.approvalId, removeOnComplete: false } })));
      await manager.query('UPDATE approval.decision_outbox SET "publishedAt" = now() WHERE "approvalId" = ANY($1::text[])', [rows.map((r) => r.approvalId)]);
      return rows.length;
    });
  }
}
