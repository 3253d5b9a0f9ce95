import { MigrationInterface, QueryRunner } from 'typeorm';

/** The Pending approvals, for the workers' sweep of those that nothing will send any more. */
export class PendingApprovals1795400016000 implements MigrationInterface {
  name = 'PendingApprovals1795400016000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX approvals_pending ON approval.approvals (id) WHERE status = 'Pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX approval.approvals_pending');
  }
}
