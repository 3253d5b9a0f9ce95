import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ApprovalDecisionEvent } from '@app/contracts';
import { managerOf, Transaction } from '@app/database';

export interface OutboxRow {
  approvalId: string;
  payload: ApprovalDecisionEvent;
}

/** The decision outbox: one event per approval id, written with its decision and marked once published. */
@Injectable()
export class DecisionOutboxRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Adds events not in the outbox yet; in the caller's transaction when given (a decision and its event commit together). */
  async add(events: ApprovalDecisionEvent[], transaction?: Transaction): Promise<void> {
    await (transaction ? managerOf(transaction) : this.db).query(
      `INSERT INTO approval.decision_outbox ("approvalId", payload)
       SELECT e->>'approvalId', e FROM jsonb_array_elements($1::jsonb) e ON CONFLICT DO NOTHING`,
      [JSON.stringify(events)],
    );
  }

  async markPublished(approvalIds: string[], transaction?: Transaction): Promise<void> {
    await (transaction ? managerOf(transaction) : this.db).query(
      'UPDATE approval.decision_outbox SET "publishedAt" = now() WHERE "approvalId" = ANY($1::text[]) AND "publishedAt" IS NULL',
      [approvalIds],
    );
  }

  /** Up to `limit` unpublished events older than `minAgeMs`, locked until the transaction ends; rows another relay holds are skipped. */
  leftovers(limit: number, minAgeMs: number, transaction: Transaction): Promise<OutboxRow[]> {
    return managerOf(transaction).query(
      `SELECT "approvalId", payload FROM approval.decision_outbox
       WHERE "publishedAt" IS NULL AND "createdAt" < now() - make_interval(secs => $1)
       ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [minAgeMs / 1000, limit],
    );
  }
}
