import { MigrationInterface, QueryRunner } from 'typeorm';

/** Decision deadlines (with the index the sweep reads) and who decided. */
export class ApprovalExtras1795400013000 implements MigrationInterface {
  name = 'ApprovalExtras1795400013000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE approval.approvals ADD COLUMN "decisionDueAt" timestamptz, ADD COLUMN "decidedBy" text`);
    await q.query(`ALTER TABLE approval.approval_log ADD COLUMN "decidedBy" text`);
    await q.query(
      `CREATE INDEX approvals_decision_due ON approval.approvals ("decisionDueAt") WHERE "decisionDueAt" IS NOT NULL AND status IN ('Pending', 'AwaitingDecision')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX approval.approvals_decision_due');
    await q.query('ALTER TABLE approval.approval_log DROP COLUMN "decidedBy"');
    await q.query('ALTER TABLE approval.approvals DROP COLUMN "decisionDueAt", DROP COLUMN "decidedBy"');
  }
}
