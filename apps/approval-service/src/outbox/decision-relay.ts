import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { ApprovalDecisionEvent, SharedQueue } from '@app/contracts';

const BATCH = 200;

/**
 * Publishes decision events from the outbox to `approval-decisions` (jobId = approvalId) and marks them.
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so any number of processes can relay at once; a crash
 * between publish and mark republishes with the same job id, which Bull ignores.
 */
@Injectable()
export class DecisionRelay implements OnModuleDestroy {
  private readonly logger = new Logger(DecisionRelay.name);
  private running?: Promise<void>;
  private again = false;
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(SharedQueue.ApprovalDecisions) private readonly decisions: Queue,
  ) {}

  /** Publishes soon without making the caller wait; calls during a pass trigger one more pass. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error) => this.logger.warn({ error: (error as Error).message }, 'decision relay pass failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Also relay on a timer, for events whose writer crashed before it could kick. */
  poll(everyMs: number): void {
    this.timer = setInterval(() => this.kick(), everyMs);
    this.timer.unref();
  }

  async drain(): Promise<void> {
    while ((await this.publishBatch()) === BATCH);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private publishBatch(): Promise<number> {
    return this.db.transaction(async (manager) => {
      const rows: Array<{ approvalId: string; payload: ApprovalDecisionEvent }> = await manager.query(
        `SELECT "approvalId", payload FROM approval.decision_outbox WHERE "publishedAt" IS NULL
         ORDER BY "createdAt" LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      );
      if (!rows.length) return 0;
      await this.decisions.addBulk(rows.map((r) => ({ name: 'decision', data: r.payload, opts: { jobId: r.approvalId, removeOnComplete: false } })));
      await manager.query('UPDATE approval.decision_outbox SET "publishedAt" = now() WHERE "approvalId" = ANY($1::text[])', [rows.map((r) => r.approvalId)]);
      return rows.length;
    });
  }
}
