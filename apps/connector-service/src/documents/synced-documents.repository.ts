import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';

/**
 * Documents (`d`) run `$2` did not see: a run has seen a document it saved, or one whose listing it recorded as a
 * sighting.
 */
export const UNSEEN_BY_RUN = `d."lastSeenRunId" <> $2 AND NOT EXISTS (
  SELECT 1 FROM connector.sync_sightings s WHERE s."syncRunId" = $2 AND s."externalId" = d."externalId")`;

export interface KnownDocument {
  id: string;
  externalId: string;
  folderId: string;
  name: string;
  path: string;
  size: number;
  version: string | null;
  modifiedAt: Date | null;
  remoteSha256: string | null;
  /** False when its content was not stored (Skipped): a later run looks at it again. */
  stored: boolean;
  lastSeenRunId: string;
}

export interface IngestedDocument {
  tenantId: string;
  dataSourceId: string;
  externalId: string;
  folderId: string;
  name: string;
  path: string;
  mimeType: string;
  size: number;
  version: string | null;
  modifiedAt: string | null;
  remoteSha256: string | null;
  contentSha256: string;
  lastSeenRunId: string;
}

/** A listed file whose content is not stored (larger than MAX_FILE_BYTES). */
export type SkippedDocument = Omit<IngestedDocument, 'contentSha256'>;

export interface SavedDocument {
  id: string;
  contentSha256: string;
  extractionPending: boolean;
  replacedSha256: string | null;
}

/** A document a run dropped; `contentSha256` null when its content was not stored. */
export interface DroppedDocument {
  id: string;
  externalId: string;
  name: string;
  path: string;
  contentSha256: string | null;
}

export interface SyncedFolderRow {
  folderId: string;
  parentId: string | null;
  name: string;
  path: string;
}

/** A file a run saw listed, and where its document was before the run moved it (null when it did not). */
export interface RunSighting {
  externalId: string;
  priorFolderId: string | null;
  priorPath: string | null;
}

export interface DocumentMove {
  id: string;
  name: string;
  path: string;
  folderId: string;
  version: string | null;
  modifiedAt: string | null;
}

/** What sync writes: documents as listed and downloaded, the synced folder tree, and a run's sightings. */
@Injectable()
export class SyncedDocumentsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async known(dataSourceId: string, externalIds: string[]): Promise<Map<string, KnownDocument>> {
    if (!externalIds.length) return new Map();
    const rows: KnownDocument[] = await this.db.query(
      `SELECT id, "externalId", "folderId", name, path, size::float8 AS size, version, "modifiedAt", "remoteSha256", "contentSha256" IS NOT NULL AS stored, "lastSeenRunId"
       FROM connector.documents WHERE "dataSourceId" = $1 AND "externalId" = ANY($2::text[])`,
      [dataSourceId, externalIds],
    );
    return new Map(rows.map((r) => [r.externalId, r]));
  }

  /**
   * Records that a run saw these files listed (a narrow insert: the document rows are not rewritten), each with
   * where its document was before this run moved it (null: not moved). A sighting written again takes the new place.
   */
  async markSeen(transaction: Transaction, sightings: RunSighting[], runId: string): Promise<void> {
    if (!sightings.length) return;
    await managerOf(transaction).query(
      `INSERT INTO connector.sync_sightings ("syncRunId", "externalId", "priorFolderId", "priorPath")
       SELECT $1, s."externalId", s."priorFolderId", s."priorPath"
       FROM jsonb_to_recordset($2::jsonb) AS s("externalId" text, "priorFolderId" text, "priorPath" text)
       ON CONFLICT ("syncRunId", "externalId") DO UPDATE SET "priorFolderId" = EXCLUDED."priorFolderId", "priorPath" = EXCLUDED."priorPath"`,
      [runId, JSON.stringify(sightings)],
    );
  }

  /** The run's sightings of these files so far (read under the run's listing lock, which orders its pages). */
  async sightings(transaction: Transaction, runId: string, externalIds: string[]): Promise<Map<string, RunSighting>> {
    if (!externalIds.length) return new Map();
    const rows: RunSighting[] = await managerOf(transaction).query(
      `SELECT "externalId", "priorFolderId", "priorPath" FROM connector.sync_sightings
       WHERE "syncRunId" = $1 AND "externalId" = ANY($2::text[])`,
      [runId, externalIds],
    );
    return new Map(rows.map((r) => [r.externalId, r]));
  }

  /** Renamed, moved or given a new version or time with the same content: new place and stamps, no download. */
  async relocate(transaction: Transaction, moves: DocumentMove[], runId: string): Promise<void> {
    if (!moves.length) return;
    await managerOf(transaction).query(
      `UPDATE connector.documents d SET name = m.name, path = m.path, "folderId" = m."folderId", version = m.version,
         "modifiedAt" = m."modifiedAt", "lastSeenRunId" = $2, "updatedAt" = now()
       FROM jsonb_to_recordset($1::jsonb) AS m(id uuid, name text, path text, "folderId" text, version text, "modifiedAt" timestamptz)
       WHERE d.id = m.id`,
      [JSON.stringify(moves), runId],
    );
  }

  /**
   * Inserts or replaces documents (keyed by data source and external id) in one statement. New content is
   * `Pending` until the indexing queue saves its text (saveExtraction); until then the previous content's
   * text and chunks stay searchable. The same content keeps its extraction. Each row says whether its
   * extraction is due, and the hash of the content it replaced, if any, so that blob can be collected.
   */
  async saveIngested(transaction: Transaction, docs: IngestedDocument[]): Promise<SavedDocument[]> {
    if (!docs.length) return [];
    return managerOf(transaction).query(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS t("tenantId" text, "dataSourceId" uuid, "externalId" text, "folderId" text, name text,
           path text, "mimeType" text, size bigint, version text, "modifiedAt" timestamptz, "remoteSha256" text, "contentSha256" text, "lastSeenRunId" uuid)
       ),
       previous AS (
         SELECT d."externalId", d."contentSha256" FROM connector.documents d JOIN input i ON d."dataSourceId" = i."dataSourceId" AND d."externalId" = i."externalId"
       ),
       saved AS (
         INSERT INTO connector.documents AS d ("tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, version,
           "modifiedAt", "remoteSha256", "contentSha256", "extractionStatus", "extractionError", "lastSeenRunId", "ingestedAt", "updatedAt")
         SELECT "tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, version,
           "modifiedAt", "remoteSha256", "contentSha256", 'Pending', NULL, "lastSeenRunId", now(), now() FROM input
         ON CONFLICT ("dataSourceId", "externalId") DO UPDATE SET "folderId" = EXCLUDED."folderId", name = EXCLUDED.name, path = EXCLUDED.path,
           "mimeType" = EXCLUDED."mimeType", size = EXCLUDED.size, version = EXCLUDED.version, "modifiedAt" = EXCLUDED."modifiedAt",
           "remoteSha256" = EXCLUDED."remoteSha256", "contentSha256" = EXCLUDED."contentSha256",
           "extractionStatus" = CASE WHEN d."contentSha256" = EXCLUDED."contentSha256" THEN d."extractionStatus" ELSE 'Pending' END,
           "extractionError" = CASE WHEN d."contentSha256" = EXCLUDED."contentSha256" THEN d."extractionError" END,
           "lastSeenRunId" = EXCLUDED."lastSeenRunId", "updatedAt" = now()
         RETURNING id, "externalId", "contentSha256", "extractionStatus"
       )
       SELECT s.id, s."contentSha256", s."extractionStatus" = 'Pending' AS "extractionPending",
         CASE WHEN p."contentSha256" IS DISTINCT FROM s."contentSha256" THEN p."contentSha256" END AS "replacedSha256"
       FROM saved s LEFT JOIN previous p USING ("externalId")`,
      [JSON.stringify(docs)],
    );
  }

  /**
   * Upserts files listed but not stored: no content, extraction `Skipped` with error `TooLarge`, and no
   * text or chunks of an earlier version left to find. Returns the hashes of the content they replaced.
   */
  async saveSkipped(transaction: Transaction, docs: SkippedDocument[]): Promise<string[]> {
    if (!docs.length) return [];
    const manager = managerOf(transaction);
    const rows: Array<{ id: string; replacedSha256: string | null }> = await manager.query(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS t("tenantId" text, "dataSourceId" uuid, "externalId" text, "folderId" text, name text,
           path text, "mimeType" text, size bigint, version text, "modifiedAt" timestamptz, "remoteSha256" text, "lastSeenRunId" uuid)
       ),
       previous AS (
         SELECT d."externalId", d."contentSha256" FROM connector.documents d JOIN input i ON d."dataSourceId" = i."dataSourceId" AND d."externalId" = i."externalId"
       ),
       saved AS (
         INSERT INTO connector.documents AS d ("tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, version,
           "modifiedAt", "remoteSha256", "contentSha256", "extractionStatus", "extractionError", text, "lastSeenRunId", "ingestedAt", "updatedAt")
         SELECT "tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, version,
           "modifiedAt", "remoteSha256", NULL, 'Skipped', 'TooLarge', '', "lastSeenRunId", now(), now() FROM input
         ON CONFLICT ("dataSourceId", "externalId") DO UPDATE SET "folderId" = EXCLUDED."folderId", name = EXCLUDED.name, path = EXCLUDED.path,
           "mimeType" = EXCLUDED."mimeType", size = EXCLUDED.size, version = EXCLUDED.version, "modifiedAt" = EXCLUDED."modifiedAt",
           "remoteSha256" = EXCLUDED."remoteSha256", "contentSha256" = NULL, "extractionStatus" = 'Skipped', "extractionError" = 'TooLarge',
           text = '', "lastSeenRunId" = EXCLUDED."lastSeenRunId", "updatedAt" = now()
         RETURNING id, "externalId"
       )
       SELECT s.id, p."contentSha256" AS "replacedSha256" FROM saved s LEFT JOIN previous p USING ("externalId")`,
      [JSON.stringify(docs)],
    );
    await manager.query('DELETE FROM connector.document_chunks WHERE "documentId" = ANY($1::uuid[])', [
      rows.map((r) => r.id),
    ]);
    return rows.flatMap((r) => (r.replacedSha256 ? [r.replacedSha256] : []));
  }

  /** Drops documents and folders not seen by `runId` (deleted, or no longer selected); returns the documents dropped. */
  async deleteUnseen(transaction: Transaction, dataSourceId: string, runId: string): Promise<DroppedDocument[]> {
    const manager = managerOf(transaction);
    // A DELETE … RETURNING answers [rows, count] through TypeORM.
    const [rows]: [DroppedDocument[], number] = await manager.query(
      `DELETE FROM connector.documents d WHERE d."dataSourceId" = $1 AND ${UNSEEN_BY_RUN}
       RETURNING id, "externalId", name, path, "contentSha256"`,
      [dataSourceId, runId],
    );
    await manager.query(`DELETE FROM connector.synced_folders WHERE "dataSourceId" = $1 AND "lastSeenRunId" <> $2`, [
      dataSourceId,
      runId,
    ]);
    return rows;
  }

  /** A run's sightings matter only until it ends. */
  async forgetSightings(transaction: Transaction, runId: string): Promise<void> {
    await managerOf(transaction).query('DELETE FROM connector.sync_sightings WHERE "syncRunId" = $1', [runId]);
  }

  /** Places folders for `runId`, where they are now; the listing places each folder once a run (its first reach). */
  async upsertFolders(
    transaction: Transaction,
    dataSourceId: string,
    folders: SyncedFolderRow[],
    runId: string,
  ): Promise<void> {
    if (!folders.length) return;
    await managerOf(transaction).query(
      `INSERT INTO connector.synced_folders ("dataSourceId", "folderId", "parentId", name, path, "lastSeenRunId")
       SELECT $1, f."folderId", f."parentId", f.name, f.path, $2 FROM jsonb_to_recordset($3::jsonb) AS f("folderId" text, "parentId" text, name text, path text)
       ON CONFLICT ("dataSourceId", "folderId") DO UPDATE SET "parentId" = EXCLUDED."parentId", name = EXCLUDED.name, path = EXCLUDED.path, "lastSeenRunId" = EXCLUDED."lastSeenRunId"`,
      [dataSourceId, runId, JSON.stringify(folders)],
    );
  }
}
