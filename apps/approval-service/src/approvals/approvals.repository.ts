import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { ApprovalDecisionEvent } from '@app/contracts';
import { ApprovalLogEntity } from './approval-log.entity';
import { APPROVAL_MOVES, ApprovalStatus, LogEntryType } from './approval-state';
import { ApprovalEntity } from './approval.entity';

export type LogEntry = Partial<Pick<ApprovalLogEntity, 'attempt' | 'httpStatus' | 'durationMs' | 'error' | 'comment'>> & { type: LogEntryType };

/** Approvals, their log and their decision events. Each state move is a conditional UPDATE. */
@Injectable()
export class ApprovalsRepository {
  constructor(
    @InjectRepository(ApprovalEntity) readonly approvals: Repository<ApprovalEntity>,
    @InjectRepository(ApprovalLogEntity) readonly log: Repository<ApprovalLogEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Moves the status if the current one allows it; returns the updated row when this caller won. */
  async move(
    manager: EntityManager,
    id: string,
    to: ApprovalStatus,
    decision: { comment?: string | null; decided?: boolean } = {},
  ): Promise<ApprovalEntity | null> {
    const [rows]: [ApprovalEntity[], number] = await manager.query(
      `UPDATE approval.approvals SET status = $2, "updatedAt" = now(),
         "callbackTokenSealed" = CASE WHEN $2 = 'Pending' THEN "callbackTokenSealed" ELSE NULL END,
         comment = CASE WHEN $4 THEN $3 ELSE comment END,
         "decidedAt" = CASE WHEN $4 THEN clock_timestamp() ELSE "decidedAt" END
       WHERE id = $1 AND status = ANY($5::text[])
       RETURNING id, "tenantId", "executionId", "stepId", "callbackId", status, comment, "decidedAt"`,
      [id, to, decision.comment ?? null, decision.decided ?? false, APPROVAL_MOVES[to]],
    );
    return rows[0] ?? null;
  }

  async append(manager: EntityManager, approvalId: string, entry: LogEntry): Promise<void> {
    await manager.insert(ApprovalLogEntity, { approvalId, at: new Date(), attempt: null, httpStatus: null, durationMs: null, error: null, comment: null, ...entry });
  }

  /** Logs a delivery attempt once; false when this attempt was already logged (a retried job). */
  async logAttemptOnce(approvalId: string, entry: LogEntry): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO approval.approval_log ("approvalId", at, type, attempt, "httpStatus", "durationMs", error)
       VALUES ($1, clock_timestamp(), 'DeliveryAttempt', $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id`,
      [approvalId, entry.attempt, entry.httpStatus ?? null, entry.durationMs ?? null, entry.error ?? null],
    );
    return rows.length > 0;
  }

  async sealedToken(id: string): Promise<string | null> {
    const rows: Array<{ sealed: string | null }> = await this.db.query('SELECT "callbackTokenSealed" AS sealed FROM approval.approvals WHERE id = $1', [id]);
    return rows[0]?.sealed ?? null;
  }

  async attemptLogged(approvalId: string, attempt: number): Promise<ApprovalLogEntity | null> {
    return this.log.findOneBy({ approvalId, attempt, type: 'DeliveryAttempt' });
  }

  async enqueueDecision(manager: EntityManager, event: ApprovalDecisionEvent): Promise<void> {
    await manager.query(`INSERT INTO approval.decision_outbox ("approvalId", payload) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [event.approvalId, event]);
  }

  entries(approvalId: string): Promise<ApprovalLogEntity[]> {
    return this.log.find({ where: { approvalId }, order: { id: 'ASC' } });
  }
}
