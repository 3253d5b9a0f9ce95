import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search ranks documents, not chunks: a document-level text vector over the first 100,000 characters
 * (GIN-indexed), and chunk vectors only for chunks that can hold text past that prefix (index ≥ 80;
 * earlier chunks end before it), with a GIN index of their own. A common word then costs one ranking
 * per document instead of one per chunk, and ingestion computes each character's vector once.
 */
export class DocumentSearch1795300012000 implements MigrationInterface {
  name = 'DocumentSearch1795300012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.documents ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', left(text, 100000))) STORED`);
    await q.query(`CREATE INDEX documents_search ON connector.documents USING gin (search)`);
    await q.query(`ALTER TABLE connector.document_chunks DROP COLUMN search`);
    await q.query(`ALTER TABLE connector.document_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (CASE WHEN index >= 80 THEN to_tsvector('english', text) END) STORED`);
    await q.query(`CREATE INDEX document_chunks_deep_search ON connector.document_chunks USING gin (search) WHERE index >= 80`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.document_chunks DROP COLUMN search`);
    await q.query(`ALTER TABLE connector.document_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED`);
    await q.query(`CREATE INDEX document_chunks_search ON connector.document_chunks USING gin (search)`);
    await q.query(`DROP INDEX connector.documents_search`);
    await q.query(`ALTER TABLE connector.documents DROP COLUMN search`);
  }
}
