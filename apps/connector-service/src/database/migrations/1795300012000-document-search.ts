import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search ranks documents, not chunks: a document-level text vector over the first 10,000 characters
 * (GIN-indexed; small, so ranking thousands of matches stays cheap), and chunk vectors only for chunks
 * that can hold text past that prefix (index ≥ 8; chunks 0-7 end before it, at most 1,200 characters
 * each), with a GIN index of their own. Ingestion computes each character's vector once.
 */
export class DocumentSearch1795300012000 implements MigrationInterface {
  name = 'DocumentSearch1795300012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.documents ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', left(text, 10000))) STORED`,
    );
    await q.query(`CREATE INDEX documents_search ON connector.documents USING gin (search)`);
    await q.query(`ALTER TABLE connector.document_chunks DROP COLUMN search`);
    await q.query(
      `ALTER TABLE connector.document_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (CASE WHEN index >= 8 THEN to_tsvector('english', text) END) STORED`,
    );
    await q.query(
      `CREATE INDEX document_chunks_deep_search ON connector.document_chunks USING gin (search) WHERE index >= 8`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.document_chunks DROP COLUMN search`);
    await q.query(
      `ALTER TABLE connector.document_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED`,
    );
    await q.query(`CREATE INDEX document_chunks_search ON connector.document_chunks USING gin (search)`);
    await q.query(`DROP INDEX connector.documents_search`);
    await q.query(`ALTER TABLE connector.documents DROP COLUMN search`);
  }
}
