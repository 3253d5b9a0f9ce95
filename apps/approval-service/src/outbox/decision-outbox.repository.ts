import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ApprovalDecisionEvent } from '@app/contracts';

/** The decision outbox's queries: rows are written with their decision (ApprovalsRepository.decide) and marked once published. */
@Injectable()
export class DecisionOutboxRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async markPublished(approvalIds: string[]): Promise<void> {
    await this.db.query(
      'UPDATE approval.decision_outbox SET "publishedAt" = now() WHERE "approvalId" = ANY($1::text[]) AND "publishedAt" IS NULL',
      [approvalIds],
    );
  }

  /**
   * Hands up to `limit` unpublished events older than `minAgeMs` to `publish` and marks them, in one
   * transaction; rows another relay holds are skipped. Returns how many were published.
   */
  publishLeftovers(
    limit: number,
    minAgeMs: number,
    publish: (events: ApprovalDecisionEvent[]) => Promise<void>,
  ): Promise<number> {
    return this.db.transaction(async (manager) => {
      const rows: Array<{ approvalId: string; payload: ApprovalDecisionEvent }> = await manager.query(
        `SELECT "approvalId", payload FROM approval.decision_outbox
         WHERE "publishedAt" IS NULL AND "createdAt" < now() - make_interval(secs => $1)
         ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [minAgeMs / 1000, limit],
      );
      if (!rows.length) return 0;
      await publish(rows.map((r) => r.payload));
      await manager.query(
        'UPDATE approval.decision_outbox SET "publishedAt" = now() WHERE "approvalId" = ANY($1::text[])',
        [rows.map((r) => r.approvalId)],
      );
      return rows.length;
    });
  }
}
