import { MigrationInterface, QueryRunner } from 'typeorm';

/** A user's started authorizations, newest first: a new one drops those past the user's last 20. */
export class AuthorizationRequestsPerUser1795300066000 implements MigrationInterface {
  name = 'AuthorizationRequestsPerUser1795300066000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX oauth_authorization_requests_user ON connector.oauth_authorization_requests ("tenantId", "userId", "expiresAt" DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connector.oauth_authorization_requests_user`);
  }
}
