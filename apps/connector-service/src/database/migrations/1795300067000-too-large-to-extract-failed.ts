import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A document whose file was too large to extract showed extraction status `TooLarge`, which CONTRACT.md does not
 * name: past an extraction limit a document is `Failed` with the reason. Those already extracted are moved so.
 */
export class TooLargeToExtractFailed1795300067000 implements MigrationInterface {
  name = 'TooLargeToExtractFailed1795300067000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE connector.documents SET "extractionStatus" = 'Failed', "extractionError" = $1
       WHERE "extractionStatus" = 'TooLarge'`,
      [REASON],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE connector.documents SET "extractionStatus" = 'TooLarge', "extractionError" = 'Larger than 52428800 bytes'
       WHERE "extractionStatus" = 'Failed' AND "extractionError" = $1`,
      [REASON],
    );
  }
}

/** The reason the extractor gives such a file now (text-extractor.ts), as it stood when this migration was written. */
const REASON = 'Larger than 50 MiB: too large to extract its text';
