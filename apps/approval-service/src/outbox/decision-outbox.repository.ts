import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ApprovalDecisionEvent } from '@app/contracts/payloads';
import { managerOf, OutboxTable, Transaction } from '@app/database';
import type { DecisionFacts } from '../approval-store/decision-event';

/**
 * An unpublished outbox row: the event it stores (a refused request, which has no approval), or, for an
 * approval's decision, the decided approval its event is built from.
 */
export type OutboxRow =
  | { approvalId: string; payload: ApprovalDecisionEvent }
  | { approvalId: string; payload: null; decided: DecisionFacts };

type LeftoverRow = Omit<DecisionFacts, 'id'> & { approvalId: string; payload: ApprovalDecisionEvent | null };

/** A published row, with when it was marked published. */
export type PublishedRow = OutboxRow & { publishedAt: Date };

/** The columns that make a row's event: its own payload, or the decided approval's. */
const EVENT_COLUMNS = `o."approvalId", o.payload, a."tenantId", a."executionId", a."stepId", a.status, a.comment, a."decidedBy", a.output, a."decidedAt"`;
// Only a row without a payload names an approval: a refused request's id is no approval's (nor always a uuid).
const WITH_DECIDED = `approval.decision_outbox o
       LEFT JOIN approval.approvals a ON a.id = CASE WHEN o.payload IS NULL THEN o."approvalId"::uuid END`;

/**
 * The decision outbox: one row per approval id, written with its decision and marked once published. The
 * decision statement (DecisionsRepository.decide) writes an approval's row without a payload.
 */
@Injectable()
export class DecisionOutboxRepository implements OutboxTable<OutboxRow> {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Stores events that have no approval behind them, once per id. */
  async add(events: ApprovalDecisionEvent[]): Promise<void> {
    await this.db.query(
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

  markLeftoversPublished(transaction: Transaction, rows: OutboxRow[]): Promise<void> {
    return this.markPublished(
      rows.map((row) => row.approvalId),
      transaction,
    );
  }

  /**
   * Up to `limit` unpublished rows older than `minAgeMs`, with the decided approval of each row that stores
   * no payload; the outbox rows stay locked until the transaction ends, and rows another relay holds are skipped.
   */
  async claimLeftovers(transaction: Transaction, limit: number, minAgeMs: number): Promise<OutboxRow[]> {
    const rows: LeftoverRow[] = await managerOf(transaction).query(
      `SELECT ${EVENT_COLUMNS} FROM ${WITH_DECIDED}
       WHERE o."publishedAt" IS NULL AND o."createdAt" < now() - make_interval(secs => $1)
       ORDER BY o."createdAt" LIMIT $2 FOR UPDATE OF o SKIP LOCKED`,
      [minAgeMs / 1000, limit],
    );
    return rows.map(outboxRow);
  }

  /**
   * Up to `limit` rows marked published at `since` or later, of one tenant or all, in approval id order after
   * `afterId` (the last id of the page before; '' for the first): what an operator replays after Redis lost them.
   */
  async publishedSince(since: Date, tenantId: string | null, afterId: string, limit: number): Promise<PublishedRow[]> {
    const rows: Array<LeftoverRow & { publishedAt: Date }> = await this.db.query(
      `SELECT ${EVENT_COLUMNS}, o."publishedAt" FROM ${WITH_DECIDED}
       WHERE o."publishedAt" >= $1 AND o."approvalId" > $2
         AND ($3::text IS NULL OR coalesce(o.payload->>'tenantId', a."tenantId") = $3)
       ORDER BY o."approvalId" LIMIT $4`,
      [since, afterId, tenantId, limit],
    );
    return rows.map(({ publishedAt, ...row }) => ({ ...outboxRow(row), publishedAt }));
  }
}

function outboxRow({ approvalId, payload, ...decided }: LeftoverRow): OutboxRow {
  return payload ? { approvalId, payload } : { approvalId, payload, decided: { id: approvalId, ...decided } };
}
