import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A credential's last check (`POST /v1/credentials/{id}/validate`), kept so that a credential refused
 * once shows as refused after a reload: `validatedAt`, `validationValid`, `validationError` (the
 * document system's refusal in words, never a secret). Null until checked, and again when the password,
 * username or instance URL changes.
 */
export class CredentialValidation1795300058000 implements MigrationInterface {
  name = 'CredentialValidation1795300058000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.credentials ADD COLUMN "validatedAt" timestamptz, ADD COLUMN "validationValid" boolean,
         ADD COLUMN "validationError" text`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.credentials DROP COLUMN "validatedAt", DROP COLUMN "validationValid", DROP COLUMN "validationError"`,
    );
  }
}
