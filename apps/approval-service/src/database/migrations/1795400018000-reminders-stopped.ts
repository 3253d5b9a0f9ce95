import { MigrationInterface, QueryRunner } from 'typeorm';

/** When a 410 Gone answer to an extra attempt (a reminder, a redelivery) ended the approval's reminders; null: they go on. */
export class RemindersStopped1795400018000 implements MigrationInterface {
  name = 'RemindersStopped1795400018000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approvals ADD COLUMN "remindersStoppedAt" timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approvals DROP COLUMN "remindersStoppedAt"');
  }
}
