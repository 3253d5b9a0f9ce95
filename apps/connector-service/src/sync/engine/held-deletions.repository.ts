import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { DroppedDocument, UNSEEN_BY_RUN } from '../../documents/synced-documents.repository';
import type { SyncRunStatus } from '../sync-run-state';
import { CONFIRM_ASKED, DECISION_RELEASED, RootTally } from './deletion-guard-rule';

/** A document whose deletion a run holds. */
export type HeldDocument = Pick<DroppedDocument, 'id' | 'externalId' | 'name' | 'path'>;

/** The deletion guard's queries: what a run would delete, per selection root, and the deletions it holds. */
@Injectable()
export class HeldDeletionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The data source's documents per selection root (walking the synced folders down from each, around excluded ones). */
  async tally(
    transaction: Transaction,
    dataSourceId: string,
    runId: string,
    roots: string[],
    excluded: string[],
  ): Promise<RootTally[]> {
    return managerOf(transaction).query(
      `WITH RECURSIVE covered(root, "folderId") AS (
         SELECT r, r FROM unnest($3::text[]) AS r
         UNION
         SELECT c.root, f."folderId" FROM connector.synced_folders f JOIN covered c ON f."parentId" = c."folderId"
         WHERE f."dataSourceId" = $1 AND NOT f."folderId" = ANY($4::text[])
       )
       SELECT c.root, rf.path, count(*)::int AS documents, count(*) FILTER (WHERE ${UNSEEN_BY_RUN})::int AS unseen
       FROM connector.documents d
       LEFT JOIN covered c ON c."folderId" = d."folderId"
       LEFT JOIN connector.synced_folders rf ON rf."dataSourceId" = $1 AND rf."folderId" = c.root
       WHERE d."dataSourceId" = $1
       GROUP BY c.root, rf.path`,
      [dataSourceId, runId, roots, excluded],
    );
  }

  /**
   * Drops what the run did not see outside the selection now (walked as `tally` walks it): documents and folders its
   * creator deselected. A user's own decision is not held with the rest: members would read it on until a
   * confirmation. Returns the documents dropped.
   */
  async dropDeselected(
    transaction: Transaction,
    dataSourceId: string,
    runId: string,
    roots: string[],
    excluded: string[],
  ): Promise<DroppedDocument[]> {
    // A DELETE … RETURNING answers [rows, count] through TypeORM; every part of the statement sees `covered` as it was.
    const [rows]: [DroppedDocument[], number] = await managerOf(transaction).query(
      `WITH RECURSIVE covered("folderId") AS (
         SELECT r FROM unnest($3::text[]) AS r
         UNION
         SELECT f."folderId" FROM connector.synced_folders f JOIN covered c ON f."parentId" = c."folderId"
         WHERE f."dataSourceId" = $1 AND NOT f."folderId" = ANY($4::text[])
       ),
       folders AS (
         DELETE FROM connector.synced_folders f WHERE f."dataSourceId" = $1 AND f."lastSeenRunId" <> $2
           AND NOT EXISTS (SELECT 1 FROM covered c WHERE c."folderId" = f."folderId"))
       DELETE FROM connector.documents d WHERE d."dataSourceId" = $1 AND ${UNSEEN_BY_RUN}
         AND NOT EXISTS (SELECT 1 FROM covered c WHERE c."folderId" = d."folderId")
         -- In a folder the tree knows, outside the selection: one whose folder it lost is held, not taken for deselected.
         AND EXISTS (SELECT 1 FROM connector.synced_folders f WHERE f."dataSourceId" = $1 AND f."folderId" = d."folderId")
       RETURNING d.id, d."externalId", d.name, d.path, d."contentSha256"`,
      [dataSourceId, runId, roots, excluded],
    );
    return rows;
  }

  /** Holds every document the run did not see, instead of deleting it; returns the documents the run holds. */
  async hold(transaction: Transaction, dataSourceId: string, runId: string): Promise<HeldDocument[]> {
    const manager = managerOf(transaction);
    await manager.query(
      `INSERT INTO connector.held_deletions ("syncRunId", "documentId")
       SELECT $2, d.id FROM connector.documents d WHERE d."dataSourceId" = $1 AND ${UNSEEN_BY_RUN} ON CONFLICT DO NOTHING`,
      [dataSourceId, runId],
    );
    // Counted from the rows, not from this insert: a hold made again after a retry keeps the whole count.
    await manager.query(
      `UPDATE connector.sync_runs SET "deletionsHeld" = (SELECT count(*) FROM connector.held_deletions WHERE "syncRunId" = $1)
       WHERE id = $1`,
      [runId],
    );
    return manager.query(
      `SELECT d.id, d."externalId", d.name, d.path FROM connector.held_deletions h
       JOIN connector.documents d ON d.id = h."documentId" WHERE h."syncRunId" = $1`,
      [runId],
    );
  }

  /**
   * A new run decides deletions afresh: the data source's earlier runs hold none any more (nothing is deleted),
   * and their error no longer asks for a confirmation that would be refused. Returns the runs released.
   */
  async releaseEarlier(transaction: Transaction, dataSourceId: string, runId: string): Promise<string[]> {
    const manager = managerOf(transaction);
    const [released]: [Array<{ id: string }>, number] = await manager.query(
      `UPDATE connector.sync_runs SET "deletionsHeld" = 0, error = replace(error, $3, $4)
       WHERE "dataSourceId" = $1 AND id <> $2 AND "deletionsHeld" > 0 RETURNING id`,
      [dataSourceId, runId, CONFIRM_ASKED, DECISION_RELEASED],
    );
    const runs = released.map((r) => r.id);
    if (runs.length)
      await manager.query('DELETE FROM connector.held_deletions WHERE "syncRunId" = ANY($1::uuid[])', [runs]);
    return runs;
  }

  /**
   * Waits for a run of the data source that is being created, and keeps new ones from being created until the
   * transaction ends: creating a run checks its data source's row (`FOR KEY SHARE`), which this lock excludes. So
   * `take` below sees every later run, and `apply` never drops folders a run just started has seen.
   */
  async lockRunStarts(transaction: Transaction, dataSourceId: string): Promise<void> {
    await managerOf(transaction).query('SELECT 1 FROM connector.data_sources WHERE id = $1 FOR UPDATE', [dataSourceId]);
  }

  /**
   * Takes the run's held deletions, once: only while some are held and no later run of its data source exists (a
   * later run decides deletions afresh). Of two concurrent confirmations the second waits on the row and finds none.
   */
  async take(transaction: Transaction, runId: string): Promise<{ dataSourceId: string } | null> {
    const [rows]: [Array<{ dataSourceId: string }>, number] = await managerOf(transaction).query(
      `UPDATE connector.sync_runs r SET "deletionsHeld" = 0
       WHERE r.id = $1 AND r."deletionsHeld" > 0 AND NOT EXISTS (
         SELECT 1 FROM connector.sync_runs later WHERE later."dataSourceId" = r."dataSourceId" AND later."createdAt" > r."createdAt")
       RETURNING r."dataSourceId"`,
      [runId],
    );
    return rows[0] ?? null;
  }

  /**
   * Deletes the held documents (their chunks go with them) and the folders the run did not see, and settles the
   * run: it no longer says why it held them, and one held back only by the guard has Succeeded now. Returns the
   * documents deleted and the run's status.
   */
  async apply(
    transaction: Transaction,
    dataSourceId: string,
    runId: string,
  ): Promise<{ dropped: DroppedDocument[]; status: SyncRunStatus }> {
    const manager = managerOf(transaction);
    const [rows]: [DroppedDocument[], number] = await manager.query(
      `DELETE FROM connector.documents d USING connector.held_deletions h
       WHERE h."syncRunId" = $1 AND d.id = h."documentId"
       RETURNING d.id, d."externalId", d.name, d.path, d."contentSha256"`,
      [runId],
    );
    await manager.query('DELETE FROM connector.held_deletions WHERE "syncRunId" = $1', [runId]);
    await manager.query(`DELETE FROM connector.synced_folders WHERE "dataSourceId" = $1 AND "lastSeenRunId" <> $2`, [
      dataSourceId,
      runId,
    ]);
    const [runs]: [Array<{ status: SyncRunStatus }>, number] = await manager.query(
      `UPDATE connector.sync_runs SET deleted = deleted + $2, error = NULL,
         status = CASE WHEN status = 'PartiallySucceeded' AND failed = 0 THEN 'Succeeded' ELSE status END
       WHERE id = $1 RETURNING status`,
      [runId, rows.length],
    );
    return { dropped: rows, status: runs[0].status };
  }
}
