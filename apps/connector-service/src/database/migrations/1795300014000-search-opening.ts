import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Relevance is judged on a document's opening 2,000 characters (title block, first page): a small vector
 * that usually stays in the row. Ranking on the 10,000-character match vector made a common word that
 * matches every document cost a TOAST fetch and thousands of positions per document (docs/ingestion.md,
 * "Measured choices"); matching still uses the 10,000-character vector and the deep chunk vectors.
 */
export class SearchOpening1795300014000 implements MigrationInterface {
  name = 'SearchOpening1795300014000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.documents ADD COLUMN "openingSearch" tsvector GENERATED ALWAYS AS (to_tsvector('english', left(text, 2000))) STORED`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.documents DROP COLUMN "openingSearch"`);
  }
}
