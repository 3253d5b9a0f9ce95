import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search picks the documents it ranks through indexes, so its work is bounded by the page asked for
 * (docs/ingestion.md, "Search at 100,000 documents"):
 * - the opening vector gets its own GIN index: documents whose opening holds the words are the first
 *   candidates (they are the only ones the opening rank scores above zero);
 * - a path-prefix filter is read from a btree instead of rechecking every text match's vector first.
 */
export class SearchCandidates1795300036000 implements MigrationInterface {
  name = 'SearchCandidates1795300036000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX documents_opening_search ON connector.documents USING gin ("openingSearch") WITH (fastupdate = off)`,
    );
    await q.query(`CREATE INDEX documents_path ON connector.documents ("dataSourceId", path text_pattern_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connector.documents_path`);
    await q.query(`DROP INDEX connector.documents_opening_search`);
  }
}
