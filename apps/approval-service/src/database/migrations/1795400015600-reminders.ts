import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reminders: the interval asked for, the last interval ("round") a reminder was claimed in, how many were
 * sent and the attempt number the last one took; extra attempts (reminders, redeliveries) take their numbers
 * from one counter. A reminder's DeliveryAttempt entry says which reminder it was.
 */
export class Reminders1795400015600 implements MigrationInterface {
  name = 'Reminders1795400015600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE approval.approvals ADD COLUMN "remindAfterSeconds" int,
         ADD COLUMN "reminderRound" int NOT NULL DEFAULT 0, ADD COLUMN "remindersSent" int NOT NULL DEFAULT 0,
         ADD COLUMN "reminderAttempt" int, ADD COLUMN "lastExtraAttempt" int`,
    );
    await q.query('ALTER TABLE approval.approval_log ADD COLUMN reminder int');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approval_log DROP COLUMN reminder');
    await q.query(
      `ALTER TABLE approval.approvals DROP COLUMN "remindAfterSeconds", DROP COLUMN "reminderRound",
         DROP COLUMN "remindersSent", DROP COLUMN "reminderAttempt", DROP COLUMN "lastExtraAttempt"`,
    );
  }
}
