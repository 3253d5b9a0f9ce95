import { MigrationInterface, QueryRunner } from 'typeorm';

const VECTORS: Array<[table: string, column: string]> = [
  ['documents', 'search'],
  ['documents', '"openingSearch"'],
  ['document_chunks', 'search'],
];
const TEXTS = ['documents', 'document_chunks'];

/**
 * Saving extracted text costs PostgreSQL less CPU (docs/ingestion.md, "Time to searchable"): search
 * vectors are stored without a try at compressing them (pglz gave up on most of them after spending the
 * time), and text is compressed with lz4 where the server has it (several times faster than pglz).
 * Rows saved before keep what they have until their text is saved again.
 */
export class CheaperToast1795300038000 implements MigrationInterface {
  name = 'CheaperToast1795300038000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, column] of VECTORS)
      await q.query(`ALTER TABLE connector.${table} ALTER COLUMN ${column} SET STORAGE EXTERNAL`);
    if (!(await hasLz4(q))) return;
    for (const table of TEXTS) await q.query(`ALTER TABLE connector.${table} ALTER COLUMN text SET COMPRESSION lz4`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TEXTS)
      await q.query(`ALTER TABLE connector.${table} ALTER COLUMN text SET COMPRESSION default`);
    for (const [table, column] of VECTORS)
      await q.query(`ALTER TABLE connector.${table} ALTER COLUMN ${column} SET STORAGE EXTENDED`);
  }
}

/** Whether this server was built with lz4 (the embedded one is not). */
async function hasLz4(q: QueryRunner): Promise<boolean> {
  const [row]: Array<{ lz4: boolean }> = await q.query(
    `SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
  );
  return row?.lz4 === true;
}
