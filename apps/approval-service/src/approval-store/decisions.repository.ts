import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DecidedApproval, DecisionMove } from './approval-rows';
import { APPROVAL_MOVES } from './approval-state';

/** Why an approval timed out: its log entry's error. */
export const NO_DECISION_IN_TIME = 'No decision before the decision deadline';

/**
 * A person's decision or a cancel (move `i`) that comes once approval `a`'s decision deadline has passed: it
 * times the approval out instead. The statement's start is the one instant all its rows are weighed against.
 */
const LATE = `(i."to" IN ('Approved', 'Denied', 'Cancelled') AND a."decisionDueAt" <= statement_timestamp())`;

/**
 * The decision statements: a move to an end state (a person's decision, a cancel, a time-out, a delivery
 * failure) with its log entry and its outbox row, and the look-up of a move already recorded.
 */
@Injectable()
export class DecisionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Final moves (Approved, Denied, DeliveryFailed, Cancelled, TimedOut) with their log entries and their
   * outbox rows, in one statement: all or none. An approval's outbox row holds no payload; its event is built
   * from the decided row (here by the caller, later by the relay). Null for a move whose approval was not
   * open; of several moves of one approval, exactly one wins. A decision or cancel that comes once the
   * decision deadline has passed times the approval out instead (no worker may have done it yet): the row
   * returned says TimedOut, and the caller answers that it was not pending.
   */
  async decide(batch: DecisionMove[]): Promise<Array<DecidedApproval | null>> {
    const rows: Array<DecidedApproval & { n: string }> = await this.db.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS i(id, "to", comment, type, error, allowed, "decidedBy", output, n)),
       moved AS (
         UPDATE approval.approvals a SET status = CASE WHEN ${LATE} THEN 'TimedOut' ELSE i."to" END,
           comment = CASE WHEN ${LATE} THEN NULL ELSE i.comment END, "decidedBy" = CASE WHEN ${LATE} THEN NULL ELSE i."decidedBy" END,
           output = CASE WHEN ${LATE} THEN NULL ELSE i.output::json END, "decidedAt" = clock_timestamp(), "callbackTokenSealed" = NULL, "updatedAt" = now()
         FROM input i WHERE a.id = i.id AND a.status = ANY(string_to_array(i.allowed, ','))
         RETURNING a.id, a."tenantId", a."executionId", a."stepId", a."callbackId", a.status, a.comment, a."decidedBy", a.output, a."decidedAt",
           CASE WHEN a.status = i."to" THEN i.type ELSE 'TimedOut' END AS "logType",
           CASE WHEN a.status = i."to" THEN i.error ELSE $9 END AS "logError", i.n),
       logged AS (
         INSERT INTO approval.approval_log ("approvalId", at, type, comment, error, "decidedBy") SELECT id, clock_timestamp(), "logType", comment, "logError", "decidedBy" FROM moved),
       queued AS (INSERT INTO approval.decision_outbox ("approvalId") SELECT id::text FROM moved ON CONFLICT DO NOTHING)
       SELECT id, "tenantId", "executionId", "stepId", "callbackId", status, comment, "decidedBy", output, "decidedAt", n FROM moved`,
      [
        batch.map((b) => b.id),
        batch.map((b) => b.to),
        batch.map((b) => b.entry.comment ?? null),
        batch.map((b) => b.entry.type),
        batch.map((b) => b.entry.error ?? null),
        batch.map((b) => APPROVAL_MOVES[b.to].join(',')),
        batch.map((b) => b.entry.decidedBy ?? null),
        batch.map((b) => (b.output === null ? null : JSON.stringify(b.output))),
        NO_DECISION_IN_TIME,
      ],
    );
    const byOrdinal = new Map(rows.map(({ n, ...decided }) => [Number(n), decided]));
    return batch.map((_, i) => byOrdinal.get(i + 1) ?? null);
  }

  /**
   * The moves that are recorded exactly as asked (same status, comment, decidedBy and output), as decided rows,
   * with whether their decision event is marked published; null for the others. A move whose statement was sent
   * again after its connection dropped finds itself this way when its first run committed.
   */
  async recordedAs(batch: DecisionMove[]): Promise<Array<(DecidedApproval & { published: boolean }) | null>> {
    const rows: Array<DecidedApproval & { published: boolean; n: string }> = await this.db.query(
      `SELECT a.id, a."tenantId", a."executionId", a."stepId", a."callbackId", a.status, a.comment, a."decidedBy", a.output, a."decidedAt",
         o."publishedAt" IS NOT NULL AS published, i.n
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS i(id, "to", comment, "decidedBy", output, n)
       JOIN approval.approvals a ON a.id = i.id AND a.status = i."to" AND a.comment IS NOT DISTINCT FROM i.comment
         AND a."decidedBy" IS NOT DISTINCT FROM i."decidedBy" AND a.output::text IS NOT DISTINCT FROM i.output
       LEFT JOIN approval.decision_outbox o ON o."approvalId" = a.id::text`,
      [
        batch.map((b) => b.id),
        batch.map((b) => b.to),
        batch.map((b) => b.entry.comment ?? null),
        batch.map((b) => b.entry.decidedBy ?? null),
        batch.map((b) => (b.output === null ? null : JSON.stringify(b.output))),
      ],
    );
    const byOrdinal = new Map(rows.map(({ n, ...recorded }) => [Number(n), recorded]));
    return batch.map((_, i) => byOrdinal.get(i + 1) ?? null);
  }
}
