import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The round an approval's reminders wait for and when it is due: every round before it has run. Set when the
 * approval is created (round 1) and by each round before it schedules the next, so the workers' sweep finds a
 * round whose job Redis lost (restarted without its data). Rows from before start at the round still ahead.
 */
export class ReminderNextRound1795400019000 implements MigrationInterface {
  name = 'ReminderNextRound1795400019000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE approval.approvals ADD COLUMN "reminderNextRound" int NOT NULL DEFAULT 1,
         ADD COLUMN "reminderNextAt" timestamptz`,
    );
    await q.query(
      `UPDATE approval.approvals SET "reminderNextRound" = greatest("reminderRound" + 1,
         floor(extract(epoch FROM now() - "createdAt") / "remindAfterSeconds")::int + 1)
       WHERE "remindAfterSeconds" IS NOT NULL`,
    );
    await q.query(
      `UPDATE approval.approvals SET "reminderNextAt" = "createdAt" + "reminderNextRound" * "remindAfterSeconds" * interval '1 second'
       WHERE "remindAfterSeconds" IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX approvals_reminder_next ON approval.approvals ("reminderNextAt")
       WHERE status = 'AwaitingDecision' AND "remindersStoppedAt" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX approval.approvals_reminder_next');
    await q.query('ALTER TABLE approval.approvals DROP COLUMN "reminderNextRound", DROP COLUMN "reminderNextAt"');
  }
}
