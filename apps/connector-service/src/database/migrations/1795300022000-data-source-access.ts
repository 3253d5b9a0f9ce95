import { MigrationInterface, QueryRunner } from 'typeorm';

/** A plain user's inline credential belongs to its data source (scope `DataSource`) and goes with it. */
export class DataSourceAccess1795300022000 implements MigrationInterface {
  name = 'DataSourceAccess1795300022000';

  async up(q: QueryRunner): Promise<void> {
    // Deferred: the credential is inserted first, then the data source that refers to it, in one transaction.
    await q.query(`
      ALTER TABLE connector.credentials
        ADD COLUMN "dataSourceId" uuid REFERENCES connector.data_sources(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED`);
    await q.query(`ALTER TABLE connector.credentials DROP CONSTRAINT credentials_scope_check`);
    await q.query(
      `ALTER TABLE connector.credentials ADD CONSTRAINT credentials_scope_check CHECK (scope IN ('Tenant', 'Project', 'DataSource'))`,
    );
    await q.query(
      `ALTER TABLE connector.credentials ADD CONSTRAINT credentials_data_source_check CHECK ((scope = 'DataSource') = ("dataSourceId" IS NOT NULL))`,
    );
    await q.query(
      `CREATE INDEX credentials_data_source ON connector.credentials ("dataSourceId") WHERE "dataSourceId" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.credentials DROP CONSTRAINT credentials_data_source_check`);
    // Without the scope, a data source's own credential can only become one of its project.
    await q.query(`
      UPDATE connector.credentials c SET scope = 'Project', "projectId" = ds."projectId"
      FROM connector.data_sources ds WHERE ds.id = c."dataSourceId"`);
    await q.query(`ALTER TABLE connector.credentials DROP CONSTRAINT credentials_scope_check`);
    await q.query(
      `ALTER TABLE connector.credentials ADD CONSTRAINT credentials_scope_check CHECK (scope IN ('Tenant', 'Project'))`,
    );
    await q.query(`ALTER TABLE connector.credentials DROP COLUMN "dataSourceId"`);
  }
}
