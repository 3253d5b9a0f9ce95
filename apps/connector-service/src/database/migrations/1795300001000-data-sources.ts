import { MigrationInterface, QueryRunner } from 'typeorm';

export class DataSources1795300001000 implements MigrationInterface {
  name = 'DataSources1795300001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connector.data_sources (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        "projectId" uuid NOT NULL,
        name text NOT NULL,
        "credentialId" uuid NOT NULL REFERENCES connector.credentials(id),
        "connectionId" uuid NOT NULL,
        selection jsonb NOT NULL DEFAULT '[]',
        "ingestionStatus" text NOT NULL,
        "scheduleIntervalMinutes" int,
        "nextScheduledSyncAt" timestamptz,
        "selectionSubject" text,
        "createdBy" text NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "updatedAt" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX data_sources_project ON connector.data_sources ("tenantId", "projectId")`);
    await q.query(`CREATE INDEX data_sources_connection ON connector.data_sources ("connectionId")`);
    await q.query(
      `CREATE INDEX data_sources_schedule ON connector.data_sources ("nextScheduledSyncAt") WHERE "nextScheduledSyncAt" IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE connector.data_source_members (
        "dataSourceId" uuid NOT NULL REFERENCES connector.data_sources(id) ON DELETE CASCADE,
        "userId" text NOT NULL,
        "addedBy" text NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("dataSourceId", "userId")
      )`);
    await q.query(`
      CREATE TABLE connector.picker_folders (
        "dataSourceId" uuid NOT NULL REFERENCES connector.data_sources(id) ON DELETE CASCADE,
        "folderId" text NOT NULL,
        "parentId" text,
        name text NOT NULL,
        path text NOT NULL,
        "ancestorIds" text[] NOT NULL,
        "seenAt" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("dataSourceId", "folderId")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE connector.picker_folders');
    await q.query('DROP TABLE connector.data_source_members');
    await q.query('DROP TABLE connector.data_sources');
  }
}
