import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a data source left selecting nothing last had its documents removed (docs/ingestion.md). Its runs
 * completed before then no longer describe what it holds: a cancelled run returns it to Pending rather than to
 * their status, and its next run is Full. A nullable column: nothing is rewritten.
 */
export class ContentsClearedAt1795300064000 implements MigrationInterface {
  name = 'ContentsClearedAt1795300064000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.data_sources ADD COLUMN "contentsClearedAt" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.data_sources DROP COLUMN "contentsClearedAt"`);
  }
}
