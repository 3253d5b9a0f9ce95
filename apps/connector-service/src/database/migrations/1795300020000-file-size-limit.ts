import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Files over MAX_FILE_BYTES are listed as documents without content (`Skipped`, `TooLarge`), and runs
 * count them in `skipped`.
 */
export class FileSizeLimit1795300020000 implements MigrationInterface {
  name = 'FileSizeLimit1795300020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.documents ALTER COLUMN "contentSha256" DROP NOT NULL`);
    await q.query(`ALTER TABLE connector.sync_runs ADD COLUMN skipped int NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_runs DROP COLUMN skipped`);
    await q.query(`DELETE FROM connector.documents WHERE "contentSha256" IS NULL`);
    await q.query(`ALTER TABLE connector.documents ALTER COLUMN "contentSha256" SET NOT NULL`);
  }
}
