import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { Chunk } from '../extraction/chunker';
import type { ExtractionStatus } from '../extraction/text-extractor';
import { DocumentEntity, DocumentExtractionStatus } from './document.entity';

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

export interface SyncedFolderRow {
  folderId: string;
  parentId: string | null;
  name: string;
  path: string;
}

/** Documents, their chunks and the synced folder tree: the queries sync, view and retrieval share. */
@Injectable()
export class DocumentsRepository {
  constructor(
    @InjectRepository(DocumentEntity) readonly documents: Repository<DocumentEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async known(dataSourceId: string, externalIds: string[]): Promise<Map<string, KnownDocument>> {
    if (!externalIds.length) return new Map();
    const rows: KnownDocument[] = await this.db.query(
      `SELECT id, "externalId", "folderId", name, path, size::float8 AS size, version, "modifiedAt", "remoteSha256", "contentSha256" IS NOT NULL AS stored, "lastSeenRunId"
       FROM connector.documents WHERE "dataSourceId" = $1 AND "externalId" = ANY($2::text[])`,
      [dataSourceId, externalIds],
    );
    return new Map(rows.map((r) => [r.externalId, r]));
  }

  /** Records that a run saw these files listed (a narrow insert: the document rows are not rewritten). */
  async markSeen(manager: EntityManager, externalIds: string[], runId: string): Promise<void> {
    if (!externalIds.length) return;
    await manager.query(
      `INSERT INTO connector.sync_sightings ("syncRunId", "externalId") SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      [runId, externalIds],
    );
  }

  /** Renamed or moved with the same content: new place, no download. */
  async relocate(
    manager: EntityManager,
    moves: Array<{ id: string; name: string; path: string; folderId: string }>,
    runId: string,
  ): Promise<void> {
    if (!moves.length) return;
    await manager.query(
      `UPDATE connector.documents d SET name = m.name, path = m.path, "folderId" = m."folderId", "lastSeenRunId" = $2, "updatedAt" = now()
       FROM jsonb_to_recordset($1::jsonb) AS m(id uuid, name text, path text, "folderId" text) WHERE d.id = m.id`,
      [JSON.stringify(moves), runId],
    );
  }

  /**
   * Inserts or replaces a document (keyed by data source and external id). New content is `Pending`
   * until the indexing queue saves its text (saveExtraction); until then the previous content's text and
   * chunks stay searchable. The same content keeps its extraction. Returns whether extraction is due, and
   * the hash of the content it replaced, if any, so that blob can be collected.
   */
  /** Upserts downloaded files in one statement; each row says whether its text awaits extraction and which content it replaced. */
  async saveIngested(manager: EntityManager, docs: IngestedDocument[]): Promise<SavedDocument[]> {
    if (!docs.length) return [];
    return manager.query(
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
  async saveSkipped(manager: EntityManager, docs: SkippedDocument[]): Promise<string[]> {
    if (!docs.length) return [];
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

  /**
   * Saves the text extracted from one content version, with its chunks, only while the document still
   * holds that content and waits for it (Pending → an extraction status): a job for replaced content,
   * or a repeated or given-up job after the text was saved, changes nothing (the row lock of this
   * conditional update orders it against a concurrent saveIngested). The search vectors of the document and of its
   * chunks are generated columns (migration 1795300012000-document-search). Returns whether it saved.
   */
  async saveExtraction(
    manager: EntityManager,
    target: { id: string; contentSha256: string | null },
    extraction: { status: ExtractionStatus; error: string | null; text: string },
    chunks: Chunk[],
  ): Promise<boolean> {
    // An UPDATE … RETURNING answers [rows, count] through TypeORM.
    const [rows]: [Array<{ dataSourceId: string }>, number] = await manager.query(
      `UPDATE connector.documents SET text = $3, "extractionStatus" = $4, "extractionError" = $5, "updatedAt" = now()
       WHERE id = $1 AND "contentSha256" = $2 AND "extractionStatus" = 'Pending' RETURNING "dataSourceId"`,
      [target.id, target.contentSha256, extraction.text, extraction.status, extraction.error],
    );
    if (!rows.length) return false;
    await manager.query('DELETE FROM connector.document_chunks WHERE "documentId" = $1', [target.id]);
    if (chunks.length) {
      await manager.query(
        `INSERT INTO connector.document_chunks ("documentId", "dataSourceId", index, text)
         SELECT $1, $2, c.index, c.text FROM jsonb_to_recordset($3::jsonb) AS c(index int, text text)`,
        [target.id, rows[0].dataSourceId, JSON.stringify(chunks)],
      );
    }
    return true;
  }

  /** Documents still waiting for their text since before `before`, oldest first (their jobs may be lost). */
  pendingExtractions(before: Date, limit: number): Promise<Array<{ id: string; contentSha256: string }>> {
    return this.db.query(
      `SELECT id, "contentSha256" FROM connector.documents WHERE "extractionStatus" = 'Pending' AND "updatedAt" < $1 ORDER BY "updatedAt" LIMIT $2`,
      [before, limit],
    );
  }

  /** Documents of every data source waiting for their text (the partial index on Pending answers it). */
  async countAllPendingExtractions(): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await this.db.query(
      `SELECT count(*)::int AS n FROM connector.documents WHERE "extractionStatus" = 'Pending'`,
    );
    return n;
  }

  async countPendingExtractions(dataSourceId: string, manager: EntityManager = this.db.manager): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await manager.query(
      `SELECT count(*)::int AS n FROM connector.documents WHERE "dataSourceId" = $1 AND "extractionStatus" = 'Pending'`,
      [dataSourceId],
    );
    return n;
  }

  /** Where the text extraction of a data source's documents stands: `done` ended without failure (text, unsupported, too large, not stored). */
  async extractionProgress(dataSourceId: string): Promise<{ done: number; pending: number; failed: number }> {
    const [progress]: Array<{ done: number; pending: number; failed: number }> = await this.db.query(
      `SELECT (count(*) FILTER (WHERE "extractionStatus" NOT IN ('Pending', 'Failed')))::int AS done,
              (count(*) FILTER (WHERE "extractionStatus" = 'Pending'))::int AS pending,
              (count(*) FILTER (WHERE "extractionStatus" = 'Failed'))::int AS failed
       FROM connector.documents WHERE "dataSourceId" = $1`,
      [dataSourceId],
    );
    return progress;
  }

  /** Drops documents not seen by `runId` (deleted, or no longer selected); returns their content hashes (null: none stored). */
  async deleteUnseen(manager: EntityManager, dataSourceId: string, runId: string): Promise<Array<string | null>> {
    // A DELETE … RETURNING answers [rows, count] through TypeORM.
    const [rows]: [Array<{ contentSha256: string | null }>, number] = await manager.query(
      `DELETE FROM connector.documents d WHERE d."dataSourceId" = $1 AND d."lastSeenRunId" <> $2
         AND NOT EXISTS (SELECT 1 FROM connector.sync_sightings s WHERE s."syncRunId" = $2 AND s."externalId" = d."externalId")
       RETURNING "contentSha256"`,
      [dataSourceId, runId],
    );
    await manager.query(`DELETE FROM connector.synced_folders WHERE "dataSourceId" = $1 AND "lastSeenRunId" <> $2`, [
      dataSourceId,
      runId,
    ]);
    return rows.map((r) => r.contentSha256);
  }

  /** A run's sightings matter only until it ends. */
  async forgetSightings(runId: string, manager: EntityManager = this.db.manager): Promise<void> {
    await manager.query('DELETE FROM connector.sync_sightings WHERE "syncRunId" = $1', [runId]);
  }

  async upsertFolders(
    manager: EntityManager,
    dataSourceId: string,
    folders: SyncedFolderRow[],
    runId: string,
  ): Promise<void> {
    if (!folders.length) return;
    await manager.query(
      `INSERT INTO connector.synced_folders ("dataSourceId", "folderId", "parentId", name, path, "lastSeenRunId")
       SELECT $1, f."folderId", f."parentId", f.name, f.path, $2 FROM jsonb_to_recordset($3::jsonb) AS f("folderId" text, "parentId" text, name text, path text)
       ON CONFLICT ("dataSourceId", "folderId") DO UPDATE SET "parentId" = EXCLUDED."parentId", name = EXCLUDED.name, path = EXCLUDED.path, "lastSeenRunId" = EXCLUDED."lastSeenRunId"`,
      [dataSourceId, runId, JSON.stringify(folders)],
    );
  }

  async contentHashes(dataSourceId: string): Promise<string[]> {
    const rows: Array<{ sha: string }> = await this.db.query(
      'SELECT DISTINCT "contentSha256" AS sha FROM connector.documents WHERE "dataSourceId" = $1 AND "contentSha256" IS NOT NULL',
      [dataSourceId],
    );
    return rows.map((r) => r.sha);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Serializes, per content hash, the blob collector's "unreferenced, so delete" with an ingest's
   * "stored, so refer to it": both hold this lock until their transaction ends.
   */
  /** The content locks of several blobs, taken in one order so two transactions cannot wait on each other. */
  async lockContents(manager: EntityManager, hashes: string[]): Promise<void> {
    const sorted = [...new Set(hashes)].sort();
    for (const sha256 of sorted) await this.lockContent(manager, sha256);
  }

  async lockContent(manager: EntityManager, sha256: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`blob:${sha256}`]);
  }

  async isReferenced(manager: EntityManager, sha256: string): Promise<boolean> {
    const rows = await manager.query(`SELECT 1 FROM connector.documents WHERE "contentSha256" = $1 LIMIT 1`, [sha256]);
    return rows.length > 0;
  }

  /** Of these hashes, the ones no document refers to any more (their blobs can go). */
  async unreferenced(hashes: string[]): Promise<string[]> {
    if (!hashes.length) return [];
    const rows: Array<{ sha: string }> = await this.db.query(
      `SELECT h.sha FROM unnest($1::text[]) AS h(sha) WHERE NOT EXISTS (SELECT 1 FROM connector.documents d WHERE d."contentSha256" = h.sha)`,
      [[...new Set(hashes)]],
    );
    return rows.map((r) => r.sha);
  }
}
