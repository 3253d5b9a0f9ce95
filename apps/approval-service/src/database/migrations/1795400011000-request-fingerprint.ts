import { MigrationInterface, QueryRunner } from 'typeorm';

/** A keyed fingerprint of what a repeated (executionId, stepId) must match; null for older rows. */
export class RequestFingerprint1795400011000 implements MigrationInterface {
  name = 'RequestFingerprint1795400011000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approvals ADD COLUMN "requestFingerprint" text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approvals DROP COLUMN "requestFingerprint"');
  }
}
