import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ReminderClaim } from './approval-rows';

/** The highest attempt number logged for the approval $1 (0 for none), as `n`. */
const LAST_LOGGED_ATTEMPT = `SELECT coalesce(max(attempt), 0) AS n FROM approval.approval_log WHERE "approvalId" = $1 AND type = 'DeliveryAttempt'`;

/**
 * The numbers of an approval's extra attempts (redeliveries and reminders), claimed under its row lock: one more
 * than any attempt logged or claimed before, so two extra attempts never share one.
 */
@Injectable()
export class ExtraAttemptsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The number an extra attempt (a redelivery) of an approval awaiting its decision takes: one more than
   * any attempt logged or taken before, counted under the approval's row lock, so two extra attempts never
   * share one. Null when the approval does not await its decision, its deadline has passed (though no worker
   * may have timed it out yet) or its callback token is no longer kept.
   */
  async claimExtraAttempt(approvalId: string): Promise<number | null> {
    const rows: Array<{ attempt: number }> = await this.db.query(
      `WITH claimed AS (
         UPDATE approval.approvals a SET "lastExtraAttempt" = greatest(coalesce(a."lastExtraAttempt", 0), l.n) + 1
         FROM (${LAST_LOGGED_ATTEMPT}) l
         WHERE a.id = $1 AND a.status = 'AwaitingDecision' AND a."callbackTokenSealed" IS NOT NULL
           AND (a."decisionDueAt" IS NULL OR a."decisionDueAt" > clock_timestamp())
         RETURNING a."lastExtraAttempt" AS attempt)
       SELECT attempt FROM claimed`,
      [approvalId],
    );
    return rows[0]?.attempt ?? null;
  }

  /**
   * Claims the reminder of one round (the round-th interval since the request) of an approval awaiting its
   * decision before its deadline: the next reminder number and an extra attempt number. A round is claimed
   * once; claiming it again (a retried job) answers the same numbers. Null for an unknown approval; a claim
   * without numbers when this round sends nothing (not awaiting, past its deadline, a later round claimed,
   * the reminders stopped).
   */
  async claimReminder(approvalId: string, round: number): Promise<ReminderClaim | null> {
    const rows: ReminderClaim[] = await this.db.query(
      `WITH claimed AS (
         UPDATE approval.approvals a SET
           "remindersSent" = a."remindersSent" + CASE WHEN a."reminderRound" < $2 THEN 1 ELSE 0 END,
           "reminderAttempt" = CASE WHEN a."reminderRound" < $2 THEN greatest(coalesce(a."lastExtraAttempt", 0), l.n) + 1 ELSE a."reminderAttempt" END,
           "lastExtraAttempt" = CASE WHEN a."reminderRound" < $2 THEN greatest(coalesce(a."lastExtraAttempt", 0), l.n) + 1 ELSE a."lastExtraAttempt" END,
           "reminderRound" = $2
         FROM (${LAST_LOGGED_ATTEMPT}) l
         WHERE a.id = $1 AND a.status = 'AwaitingDecision' AND a."reminderRound" <= $2 AND a."callbackTokenSealed" IS NOT NULL
           AND a."remindAfterSeconds" IS NOT NULL AND (a."decisionDueAt" IS NULL OR a."decisionDueAt" > clock_timestamp())
           AND a."remindersStoppedAt" IS NULL
         RETURNING a."remindersSent" AS reminder, a."reminderAttempt" AS attempt)
       SELECT a.status, a."tenantId", a."webhookUrl", a."createdAt", a."remindAfterSeconds", a."decisionDueAt",
         a."remindersStoppedAt" IS NOT NULL AS "remindersStopped", c.reminder, c.attempt
       FROM approval.approvals a LEFT JOIN claimed c ON true WHERE a.id = $1`,
      [approvalId, round],
    );
    return rows[0] ?? null;
  }

  /**
   * Records that the approval's reminders wait for `round` (the rounds before it have run), before its job is
   * added: the workers' sweep adds it again should Redis lose it. Never back to an earlier round (a round's job run again).
   */
  async awaitReminderRound(approvalId: string, round: number): Promise<void> {
    await this.db.query(
      `UPDATE approval.approvals
       SET "reminderNextRound" = $2, "reminderNextAt" = "createdAt" + $2 * "remindAfterSeconds" * interval '1 second'
       WHERE id = $1 AND "reminderNextRound" < $2 AND "remindAfterSeconds" IS NOT NULL`,
      [approvalId, round],
    );
  }
}
