import { MigrationInterface, QueryRunner } from 'typeorm';

export class Ingestion1795300002000 implements MigrationInterface {
  name = 'Ingestion1795300002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await q.query(`
      CREATE TABLE connector.sync_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        "dataSourceId" uuid NOT NULL REFERENCES connector.data_sources(id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('Full', 'Incremental')),
        status text NOT NULL,
        discovered int NOT NULL DEFAULT 0,
        added int NOT NULL DEFAULT 0,
        updated int NOT NULL DEFAULT 0,
        unchanged int NOT NULL DEFAULT 0,
        deleted int NOT NULL DEFAULT 0,
        failed int NOT NULL DEFAULT 0,
        "failedListings" int NOT NULL DEFAULT 0,
        "pendingTasks" int NOT NULL DEFAULT 0,
        "bytesDownloaded" bigint NOT NULL DEFAULT 0,
        error text,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "startedAt" timestamptz,
        "finishedAt" timestamptz
      )`);
    await q.query(`CREATE INDEX sync_runs_source ON connector.sync_runs ("dataSourceId", "createdAt" DESC)`);
    // One run at a time per data source, enforced by the database.
    await q.query(
      `CREATE UNIQUE INDEX sync_runs_one_active ON connector.sync_runs ("dataSourceId") WHERE status IN ('Queued', 'Running')`,
    );

    // Every unit of work of a run; a task completes once, whatever its job's retries.
    await q.query(`
      CREATE TABLE connector.sync_tasks (
        "syncRunId" uuid NOT NULL REFERENCES connector.sync_runs(id) ON DELETE CASCADE,
        key text NOT NULL,
        "jobName" text NOT NULL,
        payload jsonb NOT NULL,
        done boolean NOT NULL DEFAULT false,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("syncRunId", key)
      )`);
    await q.query(`CREATE INDEX sync_tasks_pending ON connector.sync_tasks ("syncRunId") WHERE NOT done`);

    await q.query(`
      CREATE TABLE connector.synced_folders (
        "dataSourceId" uuid NOT NULL REFERENCES connector.data_sources(id) ON DELETE CASCADE,
        "folderId" text NOT NULL,
        "parentId" text,
        name text NOT NULL,
        path text NOT NULL,
        "lastSeenRunId" uuid NOT NULL,
        PRIMARY KEY ("dataSourceId", "folderId")
      )`);
    await q.query(`CREATE INDEX synced_folders_parent ON connector.synced_folders ("dataSourceId", "parentId")`);

    await q.query(`
      CREATE TABLE connector.documents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        "dataSourceId" uuid NOT NULL REFERENCES connector.data_sources(id) ON DELETE CASCADE,
        "externalId" text NOT NULL,
        "folderId" text NOT NULL,
        name text NOT NULL,
        path text NOT NULL,
        "mimeType" text NOT NULL,
        size bigint NOT NULL,
        version text,
        "modifiedAt" timestamptz,
        "remoteSha256" text,
        "contentSha256" text NOT NULL,
        "extractionStatus" text NOT NULL,
        "extractionError" text,
        text text NOT NULL DEFAULT '',
        "lastSeenRunId" uuid NOT NULL,
        "ingestedAt" timestamptz NOT NULL DEFAULT now(),
        "updatedAt" timestamptz NOT NULL DEFAULT now(),
        "nameSearch" tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('simple', regexp_replace(name, '[._/-]+', ' ', 'g')), 'A') ||
          setweight(to_tsvector('simple', regexp_replace(path, '[._/-]+', ' ', 'g')), 'C')
        ) STORED,
        UNIQUE ("dataSourceId", "externalId")
      )`);
    await q.query(`CREATE INDEX documents_folder ON connector.documents ("dataSourceId", "folderId")`);
    await q.query(`CREATE INDEX documents_content ON connector.documents ("contentSha256")`);
    await q.query(`CREATE INDEX documents_name_search ON connector.documents USING gin ("nameSearch")`);
    await q.query(`CREATE INDEX documents_name_trgm ON connector.documents USING gin (lower(name) gin_trgm_ops)`);

    await q.query(`
      CREATE TABLE connector.document_chunks (
        "documentId" uuid NOT NULL REFERENCES connector.documents(id) ON DELETE CASCADE,
        "dataSourceId" uuid NOT NULL,
        index int NOT NULL,
        text text NOT NULL,
        search tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
        PRIMARY KEY ("documentId", index)
      )`);
    await q.query(`CREATE INDEX document_chunks_search ON connector.document_chunks USING gin (search)`);
    await q.query(`CREATE INDEX document_chunks_source ON connector.document_chunks ("dataSourceId")`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['document_chunks', 'documents', 'synced_folders', 'sync_tasks', 'sync_runs'])
      await q.query(`DROP TABLE connector.${table}`);
  }
}
