import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deep chunk's row keeps its vector in the row (docs/ingestion.md, "Time to searchable"). A row of
 * 1,200 characters of text and their vector (about 2.3 KB) passed the default 2 KB at which PostgreSQL
 * moves the largest value out of the row, so each chunk wrote a TOAST row and its index entry as well, and
 * ranking a chunk read it back from there. Up to 8,160 bytes a row now stays whole (larger ones are still
 * moved out): on 21,000 chunks, 15–20 % less CPU to insert them and a third of it to rank them. Rows
 * saved before keep what they have until their text is saved again.
 */
export class ChunkRowsWhole1795300060000 implements MigrationInterface {
  name = 'ChunkRowsWhole1795300060000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.document_chunks SET (toast_tuple_target = 8160)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.document_chunks RESET (toast_tuple_target)`);
  }
}
