import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a data source came to log in as another account (its selection discarded), while what the former login
 * ingested is still to be removed; null once it is (docs/ingestion.md). No run starts while it is set, so its
 * removal takes every document then. A nullable column: nothing is rewritten.
 */
export class LoginChangedAt1795300065000 implements MigrationInterface {
  name = 'LoginChangedAt1795300065000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.data_sources ADD COLUMN "loginChangedAt" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.data_sources DROP COLUMN "loginChangedAt"`);
  }
}
