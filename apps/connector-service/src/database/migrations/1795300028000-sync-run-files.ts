import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-file ledger of a run: one row per file the run decided something about. `documentId` has no
 * foreign key, as a Deleted row names a document that is gone; `contentSha256` ties an Added or Updated
 * row to the content whose text extraction may still turn it into NoText, Skipped or Failed.
 */
export class SyncRunFiles1795300028000 implements MigrationInterface {
  name = 'SyncRunFiles1795300028000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE connector.sync_run_files (
      "syncRunId" uuid NOT NULL REFERENCES connector.sync_runs(id) ON DELETE CASCADE,
      "externalId" text NOT NULL,
      "documentId" uuid,
      name text NOT NULL,
      path text NOT NULL,
      outcome text NOT NULL,
      reason text,
      "contentSha256" text,
      PRIMARY KEY ("syncRunId", "externalId")
    )`);
    await q.query(
      `CREATE INDEX sync_run_files_outcome ON connector.sync_run_files ("syncRunId", outcome, "externalId")`,
    );
    // Byte order, so "below a folder" is a range scan: every path below P lies in [P || '/', P || '0').
    await q.query(`CREATE INDEX sync_run_files_path ON connector.sync_run_files ("syncRunId", path COLLATE "C")`);
    await q.query(
      `CREATE INDEX sync_run_files_document ON connector.sync_run_files ("documentId", "contentSha256") WHERE "contentSha256" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE connector.sync_run_files`);
  }
}
