import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A started authorization remembers the SHA-256 of the cookie set in the browser that began it; the
 * callback needs that cookie. Authorizations begun before have none, and are refused (they last 10 minutes).
 */
export class OAuthBrowserBinding1795300050000 implements MigrationInterface {
  name = 'OAuthBrowserBinding1795300050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.oauth_authorization_requests ADD COLUMN "browserBindingHash" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.oauth_authorization_requests DROP COLUMN "browserBindingHash"`);
  }
}
