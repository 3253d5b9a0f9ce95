import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ApprovalStatus } from '../approval-store/approval-state';

/** An approval as its decision page shows it: the step input pretty-printed and cut by the database. */
export interface PageApproval {
  id: string;
  callbackId: string;
  status: ApprovalStatus;
  agentName: string;
  message: string;
  executionId: string;
  stepId: string;
  createdAt: Date;
  /** The first characters of the pretty-printed step input; null when not asked for. */
  stepInput: string | null;
  /** How many characters the whole pretty-printed step input has. */
  stepInputLength: number | null;
  /** Its decision deadline has passed (a worker times it out soon, if it has not yet). */
  overdue: boolean;
}

/** Read-only: the page's view of one approval, whatever its tenant (the signed link is the credential). */
@Injectable()
export class DecisionPageRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** `stepInputChars` 0 leaves the step input out. Null for an unknown approval. */
  async find(approvalId: string, stepInputChars: number): Promise<PageApproval | null> {
    const rows: PageApproval[] = await this.db.query(
      `WITH a AS (
         SELECT id, "callbackId"::text AS "callbackId", status, "agentName", message, "executionId", "stepId", "createdAt",
           CASE WHEN $2 > 0 THEN jsonb_pretty("stepInput"::jsonb) END AS pretty,
           coalesce("decisionDueAt" <= clock_timestamp(), false) AS overdue
         FROM approval.approvals WHERE id = $1)
       SELECT id, "callbackId", status, "agentName", message, "executionId", "stepId", "createdAt",
         left(pretty, $2) AS "stepInput", length(pretty) AS "stepInputLength", overdue FROM a`,
      [approvalId, stepInputChars],
    );
    return rows[0] ?? null;
  }
}
