import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deletion guard: a run that would delete too much holds its deletions (`deletionsHeld`, and one
 * held_deletions row per document) until someone confirms them. `createdBy` is the user who started a
 * run (null for scheduled runs): that user may confirm.
 */
export class DeletionGuard1795300030000 implements MigrationInterface {
  name = 'DeletionGuard1795300030000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE connector.sync_runs ADD COLUMN "deletionsHeld" int NOT NULL DEFAULT 0, ADD COLUMN "createdBy" text',
    );
    await q.query(`
      CREATE TABLE connector.held_deletions (
        "syncRunId" uuid NOT NULL REFERENCES connector.sync_runs(id) ON DELETE CASCADE,
        "documentId" uuid NOT NULL REFERENCES connector.documents(id) ON DELETE CASCADE,
        PRIMARY KEY ("syncRunId", "documentId")
      )`);
    await q.query('CREATE INDEX held_deletions_document ON connector.held_deletions ("documentId")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE connector.held_deletions');
    await q.query('ALTER TABLE connector.sync_runs DROP COLUMN "deletionsHeld", DROP COLUMN "createdBy"');
  }
}
