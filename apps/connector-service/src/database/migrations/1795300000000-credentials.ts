import { MigrationInterface, QueryRunner } from 'typeorm';

export class Credentials1795300000000 implements MigrationInterface {
  name = 'Credentials1795300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connector.credentials (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        name text NOT NULL,
        type text NOT NULL CHECK (type = 'DocumentSystem'),
        "instanceUrl" text NOT NULL,
        username text NOT NULL,
        "passwordEncrypted" text NOT NULL,
        scope text NOT NULL CHECK (scope IN ('Tenant', 'Project')),
        "projectId" uuid,
        "createdBy" text NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "updatedAt" timestamptz NOT NULL DEFAULT now(),
        CHECK ((scope = 'Project') = ("projectId" IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX credentials_tenant ON connector.credentials ("tenantId", "createdAt")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE connector.credentials');
  }
}
