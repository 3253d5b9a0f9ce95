import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A document's text keeps its measures beside it (docs/ingestion.md, "Reading a text"): its length in
 * characters and its size once escaped as a JSON string, which /v1/documents/{id}/text announces. A HEAD
 * or a 304 no longer reads and escapes up to 16 MiB of text for them; only the full answer reads it.
 * A trigger sets them whenever the text is written, by whichever statement, in the same row version, so
 * they always describe the text of that version (whose xmin the ETag carries). Adding the columns rewrites
 * nothing; rows written before keep them null, and reading their text measures it as before, until their
 * text is written again (an UPDATE of every row here would rewrite a large table and change every ETag).
 */
export class TextMeasures1795300062000 implements MigrationInterface {
  name = 'TextMeasures1795300062000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.documents ADD COLUMN "textLength" int, ADD COLUMN "textJsonBytes" int`);
    await q.query(
      `CREATE FUNCTION connector.measure_document_text() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         NEW."textLength" := char_length(NEW.text);
         NEW."textJsonBytes" := octet_length(to_json(NEW.text)::text) - 2;
         RETURN NEW;
       END $$`,
    );
    await q.query(
      `CREATE TRIGGER documents_text_measures BEFORE INSERT OR UPDATE OF text ON connector.documents
       FOR EACH ROW EXECUTE FUNCTION connector.measure_document_text()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER documents_text_measures ON connector.documents`);
    await q.query(`DROP FUNCTION connector.measure_document_text()`);
    await q.query(`ALTER TABLE connector.documents DROP COLUMN "textLength", DROP COLUMN "textJsonBytes"`);
  }
}
