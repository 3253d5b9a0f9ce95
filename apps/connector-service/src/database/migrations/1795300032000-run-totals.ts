import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a run's listing found (listed bytes, and the bytes of the files it queued for download) and when its
 * listing completed. Runs from before this migration have no totals: `listedAt` stays null for them.
 */
export class RunTotals1795300032000 implements MigrationInterface {
  name = 'RunTotals1795300032000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_runs
      ADD COLUMN "listedBytes" bigint NOT NULL DEFAULT 0,
      ADD COLUMN "plannedBytes" bigint NOT NULL DEFAULT 0,
      ADD COLUMN "listedAt" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE connector.sync_runs DROP COLUMN "listedBytes", DROP COLUMN "plannedBytes", DROP COLUMN "listedAt"',
    );
  }
}
