import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Free-form fields (stepInput, previousResults, a decision's output) as json, which keeps the text as written:
 * jsonb reorders object keys, so every attempt read back from the database was sent with them reordered.
 * Rows stored before keep the order jsonb gave them.
 */
export class FreeFormFieldsAsSent1795400017000 implements MigrationInterface {
  name = 'FreeFormFieldsAsSent1795400017000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE approval.approvals
      ALTER COLUMN "stepInput" TYPE json USING "stepInput"::json,
      ALTER COLUMN "previousResults" TYPE json USING "previousResults"::json,
      ALTER COLUMN output TYPE json USING output::json`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE approval.approvals
      ALTER COLUMN "stepInput" TYPE jsonb USING "stepInput"::jsonb,
      ALTER COLUMN "previousResults" TYPE jsonb USING "previousResults"::jsonb,
      ALTER COLUMN output TYPE jsonb USING output::jsonb`);
  }
}
