import { MigrationInterface, QueryRunner } from 'typeorm';

const DOCUMENT_GIN_INDEXES = [
  'documents_search',
  'documents_opening_search',
  'documents_name_search',
  'documents_name_trgm',
];
/** kB: small enough that a search reads little of it, large enough that saving text batches its entries. */
const PENDING_LIST_KB = 1024;

/**
 * Saving a document's text costs PostgreSQL less (docs/ingestion.md, "Measured choices"): its GIN indexes
 * take new entries into a small pending list again, merged into the tree a batch at a time, instead of
 * one entry at a time. Since 1795300015000 they took every entry at once, so that searches between
 * vacuums never scanned PostgreSQL's default pending list of 4 MB; one of 1 MB measured no slower to
 * search at 100,000 documents.
 */
export class SmallGinPendingLists1795300040000 implements MigrationInterface {
  name = 'SmallGinPendingLists1795300040000';

  async up(q: QueryRunner): Promise<void> {
    for (const index of DOCUMENT_GIN_INDEXES)
      await q.query(
        `ALTER INDEX connector.${index} SET (fastupdate = on, gin_pending_list_limit = ${PENDING_LIST_KB})`,
      );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of DOCUMENT_GIN_INDEXES) await q.query(`ALTER INDEX connector.${index} SET (fastupdate = off)`);
    for (const index of DOCUMENT_GIN_INDEXES)
      await q.query(`ALTER INDEX connector.${index} RESET (gin_pending_list_limit)`);
  }
}
