import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { ApprovalDecisionEvent, WebhookAuthenticationDto, WebhookAuthType } from '@app/contracts';
import { ApprovalLogEntity } from './approval-log.entity';
import { APPROVAL_MOVES, ApprovalStatus, LogEntryType } from './approval-state';
import { ApprovalEntity } from './approval.entity';
import { CallbackCredential, RecentCallbackCredentials } from './recent-callback-credentials';
import { OutageRider } from '../database/outage-rider';
import { StatementBatcher } from '../database/statement-batcher';

export type LogEntry = Partial<
  Pick<ApprovalLogEntity, 'attempt' | 'httpStatus' | 'durationMs' | 'error' | 'comment' | 'decidedBy'>
> & { type: LogEntryType };

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
  requestFingerprint: string;
  timeoutSeconds: number;
  maxRetryAttempts: number;
  callbackId: string;
  callbackTokenHash: string;
  callbackTokenSealed: string;
  /** No decision within this many seconds: TimedOut. Null: no limit. */
  decisionTimeoutSeconds: number | null;
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
  /** The secrets in the clear, only on an approval this process has just created: spares decrypting them. */
  inHand?: { callbackToken: string; authentication: WebhookAuthenticationDto };
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

/**
 * How long a batched statement waits out an outage before its callers see the error (an HTTP caller waits
 * this long): an outage of up to a minute, or two restarts close together, fails no request or callback.
 */
const HOLD_STATEMENTS_MS = 60_000;

const DECISIONS: ApprovalStatus[] = ['Approved', 'Denied', 'DeliveryFailed', 'Cancelled', 'TimedOut'];

export type CallbackView = Pick<
  ApprovalEntity,
  'id' | 'callbackTokenHash' | 'status' | 'callbackId' | 'executionId' | 'decidedAt'
>;

export interface AttemptRecord {
  delivered: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Approvals, their log and their decision outbox. Every state move is one conditional UPDATE; the hot
 * paths (request, attempt, callback lookup, decision) are single statements, each atomic, and the calls
 * that arrive together share one (StatementBatcher): one round trip and one commit for many approvals.
 */
@Injectable()
export class ApprovalsRepository {
  constructor(
    @InjectRepository(ApprovalEntity) readonly approvals: Repository<ApprovalEntity>,
    @InjectRepository(ApprovalLogEntity) readonly log: Repository<ApprovalLogEntity>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly outage: OutageRider,
  ) {}

  // A statement that meets a short outage waits for the database instead of failing its callers; a
  // replayed batch is safe: each statement reports what was done already (inserted, logged, decided) as not done now.
  private readonly hold = <T>(run: () => Promise<T>) => this.outage.ride(run, HOLD_STATEMENTS_MS);
  private readonly inserts = new StatementBatcher((batch: NewApproval[]) => this.insertBatch(batch), 100, this.hold);
  private readonly attempts = new StatementBatcher(
    (batch: Array<{ id: string; attempt: number } & AttemptRecord>) => this.recordBatch(batch),
    100,
    this.hold,
  );
  private readonly decisions = new StatementBatcher(
    (batch: Array<{ id: string; to: ApprovalStatus; entry: LogEntry }>) => this.decideBatch(batch),
    100,
    this.hold,
  );
  private readonly callbackLookups = new StatementBatcher((ids: string[]) => this.callbackBatch(ids), 100, this.hold);
  private readonly recentCredentials = new RecentCallbackCredentials();

  /**
   * Inserts a Pending approval with its Requested entry and returns it as its first delivery attempt
   * sees it (no second read); null when (tenant, execution, step) exists. Batched.
   */
  insertRequested(a: NewApproval): Promise<DeliveryView | null> {
    return this.inserts.submit(a);
  }

  private async insertBatch(batch: NewApproval[]): Promise<Array<DeliveryView | null>> {
    const column = <K extends keyof NewApproval>(key: K) => batch.map((a) => a[key]);
    const rows: Array<{ id: string; callbackId: string; createdAt: Date }> = await this.db.query(
      `WITH inserted AS (
         INSERT INTO approval.approvals ("tenantId", "executionId", "stepId", "agentName", message, "stepInput", "previousResults", "webhookUrl",
           "authType", "authEncrypted", "timeoutSeconds", "maxRetryAttempts", "callbackId", "callbackTokenHash", "callbackTokenSealed", "requestFingerprint", status, "decisionDueAt")
         SELECT t, e, s, n, m, si::jsonb, pr::jsonb, u, at, ae, ts, mr, c, h, cs, f, 'Pending', clock_timestamp() + make_interval(secs => dt)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
           $9::text[], $10::text[], $11::int[], $12::int[], $13::uuid[], $14::text[], $15::text[], $16::text[], $17::int[]) AS i(t, e, s, n, m, si, pr, u, at, ae, ts, mr, c, h, cs, f, dt)
         ON CONFLICT ("tenantId", "executionId", "stepId") DO NOTHING RETURNING id, "callbackId", "createdAt"),
       logged AS (INSERT INTO approval.approval_log ("approvalId", at, type) SELECT id, clock_timestamp(), 'Requested' FROM inserted)
       SELECT id, "callbackId"::text AS "callbackId", "createdAt" FROM inserted`,
      [
        column('tenantId'),
        column('executionId'),
        column('stepId'),
        column('agentName'),
        column('message'),
        batch.map((a) => JSON.stringify(a.stepInput ?? null)),
        batch.map((a) => JSON.stringify(a.previousResults ?? null)),
        column('webhookUrl'),
        column('authType'),
        column('authEncrypted'),
        column('timeoutSeconds'),
        column('maxRetryAttempts'),
        column('callbackId'),
        column('callbackTokenHash'),
        column('callbackTokenSealed'),
        column('requestFingerprint'),
        column('decisionTimeoutSeconds'),
      ],
    );
    const byCallback = new Map(rows.map((r) => [r.callbackId, r]));
    return batch.map((a) => {
      const row = byCallback.get(a.callbackId);
      if (!row) return null;
      this.recentCredentials.remember(a.callbackId, { id: row.id, callbackTokenHash: a.callbackTokenHash });
      return { ...a, id: row.id, createdAt: row.createdAt, status: 'Pending', loggedAttempt: null };
    });
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
   * Pending → AwaitingDecision with a Delivered entry. Returns false if the attempt was logged already. Batched.
   */
  recordAttempt(id: string, attempt: number, result: AttemptRecord): Promise<boolean> {
    return this.attempts.submit({ id, attempt, ...result });
  }

  private async recordBatch(batch: Array<{ id: string; attempt: number } & AttemptRecord>): Promise<boolean[]> {
    const rows: Array<{ id: string; attempt: number }> = await this.db.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::text[], $6::bool[]) AS i(id, attempt, "httpStatus", "durationMs", error, delivered)),
       attempt AS (
         INSERT INTO approval.approval_log ("approvalId", at, type, attempt, "httpStatus", "durationMs", error)
         SELECT id, clock_timestamp(), 'DeliveryAttempt', attempt, "httpStatus", "durationMs", error FROM input
         ON CONFLICT DO NOTHING RETURNING "approvalId", attempt),
       moved AS (
         UPDATE approval.approvals a SET status = 'AwaitingDecision', "updatedAt" = now()
         FROM input i JOIN attempt t ON t."approvalId" = i.id AND t.attempt = i.attempt
         WHERE a.id = i.id AND i.delivered AND a.status = ANY($7::text[]) RETURNING a.id, i.attempt),
       delivered AS (INSERT INTO approval.approval_log ("approvalId", at, type, attempt) SELECT id, clock_timestamp() + interval '1 microsecond', 'Delivered', attempt FROM moved)
       SELECT "approvalId"::text AS id, attempt FROM attempt`,
      [
        batch.map((b) => b.id),
        batch.map((b) => b.attempt),
        batch.map((b) => b.httpStatus),
        batch.map((b) => b.durationMs),
        batch.map((b) => b.error),
        batch.map((b) => b.delivered),
        APPROVAL_MOVES.AwaitingDecision,
      ],
    );
    // The same attempt twice in one batch (a redelivered job) is logged once: only its first call owns it.
    const unclaimed = new Set(rows.map((r) => `${r.id}:${r.attempt}`));
    return batch.map((b) => unclaimed.delete(`${b.id}:${b.attempt}`));
  }

  /** Marks a Pending approval delivered after a crash found its successful attempt already logged. */
  async markDelivered(id: string): Promise<void> {
    await this.db.query(
      `WITH moved AS (UPDATE approval.approvals SET status = 'AwaitingDecision', "updatedAt" = now()
         WHERE id = $1 AND status = 'Pending' RETURNING id)
       INSERT INTO approval.approval_log ("approvalId", at, type) SELECT id, clock_timestamp(), 'Delivered' FROM moved`,
      [id],
    );
  }

  /**
   * A final move (Approved, Denied, DeliveryFailed, Cancelled, TimedOut) with its log entry and its decision event
   * in the outbox, in one statement: either all happen or none. Null when the approval was not open.
   * Batched: of several moves of one approval in a batch, exactly one wins.
   */
  decide(id: string, to: ApprovalStatus, entry: LogEntry): Promise<Decided | null> {
    if (!DECISIONS.includes(to)) return Promise.reject(new Error(`${to} is not a decision`));
    return this.decisions.submit({ id, to, entry });
  }

  private async decideBatch(
    batch: Array<{ id: string; to: ApprovalStatus; entry: LogEntry }>,
  ): Promise<Array<Decided | null>> {
    const rows: Array<Decided & { n: string }> = await this.db.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS i(id, "to", comment, type, error, allowed, "decidedBy", n)),
       moved AS (
         UPDATE approval.approvals a SET status = i."to", comment = i.comment, "decidedBy" = i."decidedBy", "decidedAt" = clock_timestamp(), "callbackTokenSealed" = NULL, "updatedAt" = now()
         FROM input i WHERE a.id = i.id AND a.status = ANY(string_to_array(i.allowed, ','))
         RETURNING a.id, a."tenantId", a."executionId", a."stepId", a."callbackId", a.status, a.comment, a."decidedBy", a."decidedAt", i.type AS "logType", i.error AS "logError", i.n),
       logged AS (
         INSERT INTO approval.approval_log ("approvalId", at, type, comment, error, "decidedBy") SELECT id, clock_timestamp(), "logType", comment, "logError", "decidedBy" FROM moved),
       event AS (
         SELECT m.id, m."tenantId", m."executionId", m."stepId", m."callbackId", m.status, m.comment, m."decidedAt", m.n,
           jsonb_build_object('approvalId', m.id::text, 'tenantId', m."tenantId", 'executionId', m."executionId", 'stepId', m."stepId",
           'outcome', m.status, 'comment', m.comment, 'decidedBy', m."decidedBy",
           'decidedAt', to_char(m."decidedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS event FROM moved m),
       queued AS (INSERT INTO approval.decision_outbox ("approvalId", payload) SELECT id::text, event FROM event ON CONFLICT DO NOTHING)
       SELECT * FROM event`,
      [
        batch.map((b) => b.id),
        batch.map((b) => b.to),
        batch.map((b) => b.entry.comment ?? null),
        batch.map((b) => b.entry.type),
        batch.map((b) => b.entry.error ?? null),
        batch.map((b) => APPROVAL_MOVES[b.to].join(',')),
        batch.map((b) => b.entry.decidedBy ?? null),
      ],
    );
    const byOrdinal = new Map(rows.map(({ n, ...decided }) => [Number(n), decided]));
    return batch.map((_, i) => byOrdinal.get(i + 1) ?? null);
  }

  /** An event with no approval behind it (a refused queued request); written once per id. */
  async enqueueDecision(manager: EntityManager, event: ApprovalDecisionEvent): Promise<void> {
    await manager.query(
      `INSERT INTO approval.decision_outbox ("approvalId", payload) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [event.approvalId, event],
    );
  }

  async append(approvalId: string, entry: LogEntry): Promise<void> {
    await this.log.insert({
      approvalId,
      at: new Date(),
      attempt: null,
      httpStatus: null,
      durationMs: null,
      error: null,
      comment: null,
      decidedBy: null,
      ...entry,
    });
  }

  /** Open approvals whose decision deadline has passed (of `ids` when given), oldest deadline first. */
  async dueForTimeOut(limit: number, ids?: string[]): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT id FROM approval.approvals
       WHERE "decisionDueAt" IS NOT NULL AND "decisionDueAt" <= clock_timestamp() AND status IN ('Pending', 'AwaitingDecision')
         AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
       ORDER BY "decisionDueAt" LIMIT $1`,
      [limit, ids ?? null],
    );
    return rows.map((r) => r.id);
  }

  /**
   * The number the next delivery attempt of an approval takes (one more than the last logged), or null
   * when it cannot be sent again: the callback token is gone (delivered before tokens were kept while awaiting).
   */
  async nextAttempt(approvalId: string): Promise<number | null> {
    const [row]: Array<{ n: number; sendable: boolean }> = await this.db.query(
      `SELECT coalesce(max(l.attempt), 0)::int + 1 AS n, bool_and(a."callbackTokenSealed" IS NOT NULL) AS sendable
       FROM approval.approvals a LEFT JOIN approval.approval_log l ON l."approvalId" = a.id AND l.type = 'DeliveryAttempt'
       WHERE a.id = $1`,
      [approvalId],
    );
    return row?.sendable ? row.n : null;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** What a callback's token is checked against: from memory when this process created the approval lately. */
  async callbackCredential(callbackId: string): Promise<CallbackCredential | null> {
    return this.recentCredentials.get(callbackId) ?? (await this.forCallback(callbackId));
  }

  /** Called once an approval is decided: its credential is no longer needed in memory. */
  forgetCallbackCredential(callbackId: string): void {
    this.recentCredentials.forget(callbackId);
  }

  /** The approval as a callback sees it, read now. Batched. */
  forCallback(callbackId: string): Promise<CallbackView | null> {
    return this.callbackLookups.submit(callbackId);
  }

  private async callbackBatch(callbackIds: string[]): Promise<Array<CallbackView | null>> {
    const rows: CallbackView[] = await this.db.query(
      'SELECT id, "callbackTokenHash", status, "callbackId"::text AS "callbackId", "executionId", "decidedAt" FROM approval.approvals WHERE "callbackId" = ANY($1::uuid[])',
      [callbackIds],
    );
    const byId = new Map(rows.map((r) => [r.callbackId, r]));
    return callbackIds.map((id) => byId.get(id) ?? null);
  }

  entries(approvalId: string): Promise<ApprovalLogEntity[]> {
    return this.log.find({ where: { approvalId }, order: { at: 'ASC', id: 'ASC' } });
  }
}
