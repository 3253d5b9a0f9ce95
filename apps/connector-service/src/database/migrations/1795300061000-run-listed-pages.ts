import { MigrationInterface, QueryRunner } from 'typeorm';

/** Folder listing pages a run has taken, weighed against SYNC_MAX_PAGES with its other limits. */
export class RunListedPages1795300061000 implements MigrationInterface {
  name = 'RunListedPages1795300061000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_runs ADD COLUMN "listedPages" integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_runs DROP COLUMN "listedPages"`);
  }
}
