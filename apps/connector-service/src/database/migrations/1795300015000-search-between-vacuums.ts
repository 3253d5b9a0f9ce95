import { MigrationInterface, QueryRunner } from 'typeorm';

const DOCUMENT_GIN_INDEXES = ['documents_search', 'documents_name_search', 'documents_name_trgm'];

/**
 * Search stays fast between vacuums (docs/ingestion.md, "Measured choices").
 * - Every sync run marks each listed document seen (`lastSeenRunId`, not indexed). With room left on
 *   each page that update is HOT: no new index entries, and the old version is pruned when the page is
 *   next read. Packed pages left a dead copy of every document row and its index entries per run.
 * - The documents' GIN indexes take new entries into their tree at once instead of a pending list that
 *   every search scans until vacuum merges it. Their writes come from ingestion and extraction (queue
 *   work), their reads from people waiting for search results.
 */
export class SearchBetweenVacuums1795300015000 implements MigrationInterface {
  name = 'SearchBetweenVacuums1795300015000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.documents SET (fillfactor = 70)`);
    for (const index of DOCUMENT_GIN_INDEXES) await q.query(`ALTER INDEX connector.${index} SET (fastupdate = off)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of DOCUMENT_GIN_INDEXES) await q.query(`ALTER INDEX connector.${index} RESET (fastupdate)`);
    await q.query(`ALTER TABLE connector.documents RESET (fillfactor)`);
  }
}
