import { MigrationInterface, QueryRunner } from 'typeorm';

/** A user has one connection per provider: authorizing again renews it in place (data sources keep it). */
export class OneConnectionPerProvider1795300011000 implements MigrationInterface {
  name = 'OneConnectionPerProvider1795300011000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE UNIQUE INDEX oauth_connections_user_provider ON connector.oauth_connections ("tenantId", "userId", "providerId")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX connector.oauth_connections_user_provider');
  }
}
