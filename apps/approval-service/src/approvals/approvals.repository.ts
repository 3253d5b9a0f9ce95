import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { ApprovalDecisionEvent, WebhookAuthType } from '@app/contracts';
import { ApprovalLogEntity } from './approval-log.entity';
import { APPROVAL_MOVES, ApprovalStatus, LogEntryType } from './approval-state';
import { ApprovalEntity } from './approval.entity';

export type LogEntry = Partial<Pick<ApprovalLogEntity, 'attempt' | 'httpStatus' | 'durationMs' | 'error' | 'comment'>> & { type: LogEntryType };

export interface NewApproval {
  tenantId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  message: string;
  stepInput: unknown;
  previousResults: unknown;
  webhookUrl: string;
  authType: WebhookAuthType;
  authEncrypted: string | null;
  timeoutSeconds: number;
  maxRetryAttempts: number;
  callbackId: string;
  callbackTokenHash: string;
  callbackTokenSealed: string;
}

/** What a delivery attempt needs, read in one query, with what a crashed worker may have logged already. */
export interface DeliveryView {
  id: string;
  tenantId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  message: string;
  stepInput: unknown;
  previousResults: unknown;
  webhookUrl: string;
  authType: WebhookAuthType;
  authEncrypted: string | null;
  timeoutSeconds: number;
  maxRetryAttempts: number;
  callbackId: string;
  callbackTokenSealed: string | null;
  status: ApprovalStatus;
  createdAt: Date;
  loggedAttempt: { httpStatus: number | null; durationMs: number | null; error: string | null } | null;
}

export interface Decided {
  id: string;
  tenantId: string;
  executionId: string;
  stepId: string;
  callbackId: string;
  status: ApprovalStatus;
  comment: string | null;
  decidedAt: Date;
  event: ApprovalDecisionEvent;
}

const DECISIONS: ApprovalStatus[] = ['Approved', 'Denied', 'DeliveryFailed', 'Cancelled'];

/**
 * Approvals, their log and their decision outbox. Every state move is one conditional UPDATE; the hot
 * paths (request, attempt, decision) are single statements, so each is one round trip and atomic.
 */
@Injectable()
export class ApprovalsRepository {
  constructor(
    @InjectRepository(ApprovalEntity) readonly approvals: Repository<ApprovalEntity>,
    @InjectRepository(ApprovalLogEntity) readonly log: Repository<ApprovalLogEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /**
   * Inserts a Pending approval with its Requested entry and returns it as its first delivery attempt
   * sees it (no second read); null when (tenant, execution, step) exists.
   */
  async insertRequested(a: NewApproval): Promise<DeliveryView | null> {
    const rows: Array<{ id: string; createdAt: Date }> = await this.db.query(
      `WITH inserted AS (
         INSERT INTO approval.approvals ("tenantId", "executionId", "stepId", "agentName", message, "stepInput", "previousResults", "webhookUrl",
           "authType", "authEncrypted", "timeoutSeconds", "maxRetryAttempts", "callbackId", "callbackTokenHash", "callbackTokenSealed", status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'Pending')
         ON CONFLICT ("tenantId", "executionId", "stepId") DO NOTHING RETURNING id, "createdAt"),
       logged AS (INSERT INTO approval.approval_log ("approvalId", at, type) SELECT id, clock_timestamp(), 'Requested' FROM inserted)
       SELECT * FROM inserted`,
      [a.tenantId, a.executionId, a.stepId, a.agentName, a.message, JSON.stringify(a.stepInput ?? null), JSON.stringify(a.previousResults ?? null), a.webhookUrl,
        a.authType, a.authEncrypted, a.timeoutSeconds, a.maxRetryAttempts, a.callbackId, a.callbackTokenHash, a.callbackTokenSealed],
    );
    if (!rows[0]) return null;
    return { ...a, ...rows[0], status: 'Pending', loggedAttempt: null };
  }

  async deliveryView(id: string, attempt: number): Promise<DeliveryView | null> {
    const rows: DeliveryView[] = await this.db.query(
      `SELECT a.id, a."tenantId", a."executionId", a."stepId", a."agentName", a.message, a."stepInput", a."previousResults", a."webhookUrl",
         a."authType", a."authEncrypted", a."timeoutSeconds", a."maxRetryAttempts", a."callbackId", a."callbackTokenSealed", a.status, a."createdAt",
         CASE WHEN l.id IS NULL THEN NULL ELSE json_build_object('httpStatus', l."httpStatus", 'durationMs', l."durationMs", 'error', l.error) END AS "loggedAttempt"
       FROM approval.approvals a
       LEFT JOIN approval.approval_log l ON l."approvalId" = a.id AND l.type = 'DeliveryAttempt' AND l.attempt = $2
       WHERE a.id = $1`,
      [id, attempt],
    );
    return rows[0] ?? null;
  }

  /**
   * Logs a delivery attempt once (a retried job finds it logged) and, when it succeeded, moves
   * Pending → AwaitingDecision with a Delivered entry. Returns false if the attempt was logged already.
   */
  async recordAttempt(id: string, attempt: number, result: { delivered: boolean; httpStatus: number | null; durationMs: number; error: string | null }): Promise<boolean> {
    const rows: Array<{ logged: boolean }> = await this.db.query(
      `WITH attempt AS (
         INSERT INTO approval.approval_log ("approvalId", at, type, attempt, "httpStatus", "durationMs", error)
         VALUES ($1, clock_timestamp(), 'DeliveryAttempt', $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id),
       moved AS (
         UPDATE approval.approvals SET status = 'AwaitingDecision', "callbackTokenSealed" = NULL, "updatedAt" = now()
         WHERE id = $1 AND $6 AND status = ANY($7::text[]) AND EXISTS (SELECT 1 FROM attempt) RETURNING id),
       delivered AS (INSERT INTO approval.approval_log ("approvalId", at, type, attempt) SELECT id, clock_timestamp() + interval '1 microsecond', 'Delivered', $2 FROM moved)
       SELECT EXISTS (SELECT 1 FROM attempt) AS logged`,
      [id, attempt, result.httpStatus, result.durationMs, result.error, result.delivered, APPROVAL_MOVES.AwaitingDecision],
    );
    return rows[0].logged;
  }

  /** Marks a Pending approval delivered after a crash found its successful attempt already logged. */
  async markDelivered(id: string): Promise<void> {
    await this.db.query(
      `WITH moved AS (UPDATE approval.approvals SET status = 'AwaitingDecision', "callbackTokenSealed" = NULL, "updatedAt" = now()
         WHERE id = $1 AND status = 'Pending' RETURNING id)
       INSERT INTO approval.approval_log ("approvalId", at, type) SELECT id, clock_timestamp(), 'Delivered' FROM moved`,
      [id],
    );
  }

  /**
   * A final move (Approved, Denied, DeliveryFailed, Cancelled) with its log entry and its decision event
   * in the outbox, in one statement: either all happen or none. Null when the approval was not open.
   */
  async decide(id: string, to: ApprovalStatus, entry: LogEntry): Promise<Decided | null> {
    if (!DECISIONS.includes(to)) throw new Error(`${to} is not a decision`);
    const rows: Decided[] = await this.db.query(
      `WITH moved AS (
         UPDATE approval.approvals SET status = $2, comment = $3, "decidedAt" = clock_timestamp(), "callbackTokenSealed" = NULL, "updatedAt" = now()
         WHERE id = $1 AND status = ANY($6::text[])
         RETURNING id, "tenantId", "executionId", "stepId", "callbackId", status, comment, "decidedAt"),
       logged AS (
         INSERT INTO approval.approval_log ("approvalId", at, type, comment, error) SELECT id, clock_timestamp(), $4, $3, $5 FROM moved),
       event AS (
         SELECT m.*, jsonb_build_object('approvalId', m.id::text, 'tenantId', m."tenantId", 'executionId', m."executionId", 'stepId', m."stepId",
           'outcome', m.status, 'comment', m.comment,
           'decidedAt', to_char(m."decidedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS event FROM moved m),
       queued AS (INSERT INTO approval.decision_outbox ("approvalId", payload) SELECT id::text, event FROM event ON CONFLICT DO NOTHING)
       SELECT * FROM event`,
      [id, to, entry.comment ?? null, entry.type, entry.error ?? null, APPROVAL_MOVES[to]],
    );
    return rows[0] ?? null;
  }

  /** An event with no approval behind it (a refused queued request); written once per id. */
  async enqueueDecision(manager: EntityManager, event: ApprovalDecisionEvent): Promise<void> {
    await manager.query(`INSERT INTO approval.decision_outbox ("approvalId", payload) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [event.approvalId, event]);
  }

  async append(approvalId: string, entry: LogEntry): Promise<void> {
    await this.log.insert({ approvalId, at: new Date(), attempt: null, httpStatus: null, durationMs: null, error: null, comment: null, ...entry });
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Only what the callback needs to check a token. */
  async forCallback(callbackId: string): Promise<Pick<ApprovalEntity, 'id' | 'callbackTokenHash' | 'status' | 'callbackId' | 'executionId' | 'decidedAt'> | null> {
    const rows = await this.db.query(
      'SELECT id, "callbackTokenHash", status, "callbackId", "executionId", "decidedAt" FROM approval.approvals WHERE "callbackId" = $1',
      [callbackId],
    );
    return rows[0] ?? null;
  }

  entries(approvalId: string): Promise<ApprovalLogEntity[]> {
    return this.log.find({ where: { approvalId }, order: { at: 'ASC', id: 'ASC' } });
  }
}
