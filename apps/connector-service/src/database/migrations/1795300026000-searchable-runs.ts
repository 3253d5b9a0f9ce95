import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a run's DataSourceSearchable was recorded (null: not yet). Runs that ended before this migration count as
 * announced, so the first extraction to end after a deploy does not announce an old run.
 */
export class SearchableRuns1795300026000 implements MigrationInterface {
  name = 'SearchableRuns1795300026000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE connector.sync_runs ADD COLUMN "searchableAt" timestamptz');
    await q.query(`UPDATE connector.sync_runs SET "searchableAt" = "finishedAt" WHERE "finishedAt" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE connector.sync_runs DROP COLUMN "searchableAt"');
  }
}
