import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passages an agent can cite (docs/ingestion.md, "Passages and pages"): where each chunk lies in its
 * document's text, and where each page of a PDF does. Offsets count characters (code points).
 * - Deep chunks (index ≥ 8, stored as rows) get `start` and `end`.
 * - Chunks 0–7 are not stored as rows (their text is in the document's first 10,000 characters, which
 *   the document's own vectors search): the document keeps their ranges, `openingChunks` = [[start, end, byte start, byte end], …]
 *   (UTF-8 byte offsets as well, so PostgreSQL cuts them out of the text without counting characters).
 * - A PDF keeps its pages' ranges (`pageStarts`, `pageEnds`, page n at subscript n); null for other files.
 * A document extracted before this migration has `openingChunks` null: passages leave it out until the
 * indexing sweep has laid it out again (documents_without_layout finds those).
 */
export class Passages1795300054000 implements MigrationInterface {
  name = 'Passages1795300054000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.document_chunks ADD COLUMN start int, ADD COLUMN "end" int`);
    await q.query(
      `ALTER TABLE connector.documents ADD COLUMN "openingChunks" int[], ADD COLUMN "pageStarts" int[], ADD COLUMN "pageEnds" int[]`,
    );
    await q.query(
      `CREATE INDEX documents_without_layout ON connector.documents (id) WHERE "extractionStatus" = 'Succeeded' AND "openingChunks" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connector.documents_without_layout`);
    await q.query(
      `ALTER TABLE connector.documents DROP COLUMN "openingChunks", DROP COLUMN "pageStarts", DROP COLUMN "pageEnds"`,
    );
    await q.query(`ALTER TABLE connector.document_chunks DROP COLUMN start, DROP COLUMN "end"`);
  }
}
