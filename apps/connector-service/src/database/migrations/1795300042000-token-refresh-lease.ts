import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A refresh of a connection's tokens takes a lease on the row instead of holding its lock through the call
 * to the token endpoint: a slow endpoint then holds no database connection.
 */
export class TokenRefreshLease1795300042000 implements MigrationInterface {
  name = 'TokenRefreshLease1795300042000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.oauth_connections ADD COLUMN "refreshLeaseId" uuid, ADD COLUMN "refreshLeaseUntil" timestamptz`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.oauth_connections DROP COLUMN "refreshLeaseId", DROP COLUMN "refreshLeaseUntil"`,
    );
  }
}
