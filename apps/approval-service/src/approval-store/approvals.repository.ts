import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type {
  AttemptToRecord,
  CallbackView,
  DeliveryView,
  NewApproval,
  ReminderRound,
  StalledApproval,
} from './approval-rows';
import { APPROVAL_MOVES } from './approval-state';
import { ApprovalEntity } from './approval.entity';

/** How the log entry of an extra attempt answered 410 Gone goes on after its error (`HTTP 410`). */
export const REMINDERS_ENDED = "the receiver's endpoint is gone, no further reminders";

/**
 * Input row `i` is an extra attempt (approval `a` awaits its decision: the first one was delivered) answered
 * 410 Gone. recordAttempts's two updates see the row as its statement found it: one wants it Pending, this one
 * AwaitingDecision, so they never update one row twice.
 */
const GONE_WHILE_AWAITING = `(i."httpStatus" = 410 AND a.status = 'AwaitingDecision')`;

/**
 * The approval statements, one method per query. Every state move is one conditional UPDATE; the batch
 * statements take many approvals at once (BatchedApprovals shares them between concurrent callers) and
 * each is atomic on its own, so a batch replayed after an outage reports what was done already as not done now.
 */
@Injectable()
export class ApprovalsRepository {
  constructor(
    @InjectRepository(ApprovalEntity) private readonly approvals: Repository<ApprovalEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /**
   * Inserts Pending approvals with their Requested entries and returns each as its first delivery attempt
   * sees it (no second read); null for one whose (tenant, execution, step) exists.
   */
  async insertRequested(batch: NewApproval[]): Promise<Array<DeliveryView | null>> {
    const column = <K extends keyof NewApproval>(key: K) => batch.map((a) => a[key]);
    const rows: Array<{ id: string; callbackId: string; createdAt: Date }> = await this.db.query(
      `WITH inserted AS (
         INSERT INTO approval.approvals ("tenantId", "executionId", "stepId", "agentName", message, "stepInput", "previousResults", "webhookUrl",
           "authType", "authEncrypted", "timeoutSeconds", "maxRetryAttempts", "callbackId", "callbackTokenHash", "callbackTokenSealed", "requestFingerprint", status, "decisionDueAt", "remindAfterSeconds", "reminderNextAt")
         SELECT t, e, s, n, m, si::json, pr::json, u, at, ae, ts, mr, c, h, cs, f, 'Pending', clock_timestamp() + make_interval(secs => dt), ra,
           now() + make_interval(secs => ra)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
           $9::text[], $10::text[], $11::int[], $12::int[], $13::uuid[], $14::text[], $15::text[], $16::text[], $17::int[], $18::int[]) AS i(t, e, s, n, m, si, pr, u, at, ae, ts, mr, c, h, cs, f, dt, ra)
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
        column('remindAfterSeconds'),
      ],
    );
    const byCallback = new Map(rows.map((r) => [r.callbackId, r]));
    return batch.map((a) => {
      const row = byCallback.get(a.callbackId);
      return row
        ? {
            ...a,
            id: row.id,
            createdAt: row.createdAt,
            status: 'Pending',
            overdue: false,
            remindersStopped: false,
            loggedAttempt: null,
          }
        : null;
    });
  }

  async deliveryView(id: string, attempt: number): Promise<DeliveryView | null> {
    const rows: DeliveryView[] = await this.db.query(
      `SELECT a.id, a."tenantId", a."executionId", a."stepId", a."agentName", a.message, a."stepInput", a."previousResults", a."webhookUrl",
         a."authType", a."authEncrypted", a."timeoutSeconds", a."maxRetryAttempts", a."callbackId", a."callbackTokenSealed", a.status, a."createdAt",
         coalesce(a."decisionDueAt" <= clock_timestamp(), false) AS overdue, a."remindersStoppedAt" IS NOT NULL AS "remindersStopped",
         CASE WHEN l.id IS NULL THEN NULL ELSE json_build_object('httpStatus', l."httpStatus", 'durationMs', l."durationMs", 'error', l.error) END AS "loggedAttempt"
       FROM approval.approvals a
       LEFT JOIN approval.approval_log l ON l."approvalId" = a.id AND l.type = 'DeliveryAttempt' AND l.attempt = $2
       WHERE a.id = $1`,
      [id, attempt],
    );
    return rows[0] ?? null;
  }

  /**
   * Logs delivery attempts once each (a retried job finds its attempt logged) and, for those that succeeded,
   * moves Pending → AwaitingDecision with a Delivered entry. An extra attempt answered 410 Gone (the approval
   * awaits its decision, so it cannot fail) ends the approval's reminders in the same statement, and its entry
   * says so. False for an attempt that was logged already.
   */
  async recordAttempts(batch: AttemptToRecord[]): Promise<boolean[]> {
    const rows: Array<{ id: string; attempt: number }> = await this.db.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::text[], $6::bool[], $8::int[]) AS i(id, attempt, "httpStatus", "durationMs", error, delivered, reminder)),
       attempt AS (
         INSERT INTO approval.approval_log ("approvalId", at, type, attempt, "httpStatus", "durationMs", error, reminder)
         SELECT i.id, clock_timestamp(), 'DeliveryAttempt', i.attempt, i."httpStatus", i."durationMs",
           CASE WHEN ${GONE_WHILE_AWAITING} THEN concat_ws(': ', i.error, $9::text) ELSE i.error END, i.reminder
         FROM input i JOIN approval.approvals a ON a.id = i.id
         ON CONFLICT DO NOTHING RETURNING "approvalId", attempt),
       moved AS (
         UPDATE approval.approvals a SET status = 'AwaitingDecision', "updatedAt" = now()
         FROM input i JOIN attempt t ON t."approvalId" = i.id AND t.attempt = i.attempt
         WHERE a.id = i.id AND i.delivered AND a.status = ANY($7::text[]) RETURNING a.id, i.attempt),
       delivered AS (INSERT INTO approval.approval_log ("approvalId", at, type, attempt) SELECT id, clock_timestamp() + interval '1 microsecond', 'Delivered', attempt FROM moved),
       stopped AS (
         UPDATE approval.approvals a SET "remindersStoppedAt" = clock_timestamp()
         FROM input i JOIN attempt t ON t."approvalId" = i.id AND t.attempt = i.attempt
         WHERE a.id = i.id AND ${GONE_WHILE_AWAITING} AND a."remindersStoppedAt" IS NULL)
       SELECT "approvalId"::text AS id, attempt FROM attempt`,
      [
        batch.map((b) => b.id),
        batch.map((b) => b.attempt),
        batch.map((b) => b.httpStatus),
        batch.map((b) => b.durationMs),
        batch.map((b) => b.error),
        batch.map((b) => b.delivered),
        APPROVAL_MOVES.AwaitingDecision,
        batch.map((b) => b.reminder ?? null),
        REMINDERS_ENDED,
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
   * Rounds whose job did not run though due `lostAfterMs` ago (Redis lost it): of approvals awaiting their decision
   * before its deadline, reminders not stopped. At most `limit`, each tenant's longest overdue first, taking the
   * tenants in turn, so one tenant's many cannot hold another's back.
   */
  async overdueReminderRounds(lostAfterMs: number, limit: number): Promise<ReminderRound[]> {
    return this.db.query(
      `SELECT id::text AS "approvalId", "reminderNextRound" AS round FROM (
         SELECT id, "reminderNextRound", "reminderNextAt",
           row_number() OVER (PARTITION BY "tenantId" ORDER BY "reminderNextAt") AS turn
         FROM approval.approvals
         WHERE status = 'AwaitingDecision' AND "remindersStoppedAt" IS NULL
           AND "reminderNextAt" < now() - $1 * interval '1 millisecond' AND "reminderRound" < "reminderNextRound"
           AND ("decisionDueAt" IS NULL OR "decisionDueAt" > now())) overdue
       ORDER BY turn, "reminderNextAt" LIMIT $2`,
      [lostAfterMs, limit],
    );
  }

  /**
   * A page of Pending approvals (by id after `afterId`) that nothing has sent or logged for `quietMs` past
   * their webhook timeout, each with its last logged attempt (0 for none). A retry still waiting its delay
   * is among them; DeliveryProducer.resume leaves it to its job.
   */
  async stalledPending(quietMs: number, afterId: string | null, limit: number): Promise<StalledApproval[]> {
    return this.db.query(
      `SELECT a.id::text AS "approvalId", a."tenantId", a."webhookUrl", coalesce(l.attempt, 0) AS attempt
       FROM approval.approvals a
       LEFT JOIN LATERAL (
         SELECT attempt, at FROM approval.approval_log
         WHERE "approvalId" = a.id AND type = 'DeliveryAttempt' ORDER BY attempt DESC LIMIT 1) l ON true
       WHERE a.status = 'Pending' AND ($2::uuid IS NULL OR a.id > $2::uuid)
         AND greatest(a."createdAt", l.at) + a."timeoutSeconds" * interval '1 second' + $1 * interval '1 millisecond'
           < clock_timestamp()
       ORDER BY a.id LIMIT $3`,
      [quietMs, afterId, limit],
    );
  }

  /** The approvals as their callbacks see them, read now; null for an unknown callbackId. */
  async forCallbacks(callbackIds: string[]): Promise<Array<CallbackView | null>> {
    const rows: CallbackView[] = await this.db.query(
      'SELECT id, "callbackTokenHash", status, "callbackId"::text AS "callbackId", "executionId", "decidedAt" FROM approval.approvals WHERE "callbackId" = ANY($1::uuid[])',
      [callbackIds],
    );
    const byId = new Map(rows.map((r) => [r.callbackId, r]));
    return callbackIds.map((id) => byId.get(id) ?? null);
  }

  findForTenant(tenantId: string, id: string): Promise<ApprovalEntity | null> {
    return this.approvals.findOneBy({ id, tenantId });
  }

  /** The approval of a request step; it must exist. */
  findByStep(tenantId: string, executionId: string, stepId: string): Promise<ApprovalEntity> {
    return this.approvals.findOneByOrFail({ tenantId, executionId, stepId });
  }
}
