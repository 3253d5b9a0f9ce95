import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search ranks documents, not chunks: a document-level text vector over the first 100,000 characters
 * (GIN-indexed), and chunk vectors indexed only beyond that prefix (chunk index ≥ 80 can hold text past
 * it; earlier chunks cannot), so a common word costs one ranking per document instead of one per chunk.
 * Chunk vectors stay for picking the snippet of each hit.
 */
export class DocumentSearch1795300012000 implements MigrationInterface {
  name = 'DocumentSearch1795300012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.documents ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', left(text, 100000))) STORED`);
    await q.query(`CREATE INDEX documents_search ON connector.documents USING gin (search)`);
    await q.query(`DROP INDEX connector.document_chunks_search`);
    await q.query(`CREATE INDEX document_chunks_deep_search ON connector.document_chunks USING gin (search) WHERE index >= 80`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connector.document_chunks_deep_search`);
    await q.query(`CREATE INDEX document_chunks_search ON connector.document_chunks USING gin (search)`);
    await q.query(`DROP INDEX connector.documents_search`);
    await q.query(`ALTER TABLE connector.documents DROP COLUMN search`);
  }
}
