import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rejected callbacks beyond the logged ones are counted; the approval list pages newest first. */
export class ApprovalLimits1795400012000 implements MigrationInterface {
  name = 'ApprovalLimits1795400012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE approval.approvals ADD COLUMN "rejectedCallbacks" int NOT NULL DEFAULT 0`);
    await q.query(`CREATE INDEX approvals_tenant_newest ON approval.approvals ("tenantId", "createdAt" DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX approval.approvals_tenant_newest');
    await q.query('ALTER TABLE approval.approvals DROP COLUMN "rejectedCallbacks"');
  }
}
