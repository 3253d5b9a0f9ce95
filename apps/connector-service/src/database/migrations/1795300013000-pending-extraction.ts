import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Text extraction runs on its own queue after ingestion: documents wait as `Pending` meanwhile. The
 * recovery sweep (oldest pending first) and the per-data-source pending count read this small index.
 */
export class PendingExtraction1795300013000 implements MigrationInterface {
  name = 'PendingExtraction1795300013000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX documents_extraction_pending ON connector.documents ("dataSourceId", "updatedAt") WHERE "extractionStatus" = 'Pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connector.documents_extraction_pending`);
  }
}
