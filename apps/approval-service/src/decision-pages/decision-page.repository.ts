import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ApprovalStatus } from '../approval-store/approval-state';

/** An approval as its decision page reads it. */
export interface PageApproval {
  id: string;
  callbackId: string;
  status: ApprovalStatus;
  agentName: string;
  message: string;
  executionId: string;
  stepId: string;
  createdAt: Date;
  /** The step input's JSON text as stored (as the runtime sent it); null when not asked for. */
  stepInput: string | null;
  /** Its decision deadline has passed (a worker times it out soon, if it has not yet). */
  overdue: boolean;
}

/** Read-only: the page's view of one approval, whatever its tenant (the signed link is the credential). */
@Injectable()
export class DecisionPageRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** `withStepInput` false leaves the step input out. Null for an unknown approval. */
  async find(approvalId: string, withStepInput: boolean): Promise<PageApproval | null> {
    const rows: PageApproval[] = await this.db.query(
      `SELECT id, "callbackId"::text AS "callbackId", status, "agentName", message, "executionId", "stepId", "createdAt",
         CASE WHEN $2 THEN "stepInput"::text END AS "stepInput",
         coalesce("decisionDueAt" <= clock_timestamp(), false) AS overdue
       FROM approval.approvals WHERE id = $1`,
      [approvalId, withStepInput],
    );
    return rows[0] ?? null;
  }
}
