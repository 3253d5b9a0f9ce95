import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RunFileOutcome, RunFileOutcomeCounts, SyncRunFileView } from '@app/contracts/views';
import { managerOf, Transaction } from '@app/database';
import { LedgerEntry } from './ledger-entry';

/**
 * The per-file ledger of sync runs (`connector.sync_run_files`). Each step writes its files' rows in its
 * own transaction, in one statement; a retried step writes the same keys again (upsert), so it is idempotent.
 */
@Injectable()
export class FileLedgerRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async record(
    transaction: Transaction,
    dataSourceId: string,
    syncRunId: string,
    entries: LedgerEntry[],
  ): Promise<void> {
    // One statement may not touch a row twice: a file listed twice in a step keeps its last entry.
    const rows = [...new Map(entries.map((e) => [e.externalId, e])).values()];
    if (!rows.length) return;
    await managerOf(transaction).query(
      `INSERT INTO connector.sync_run_files ("syncRunId", "externalId", "documentId", name, path, outcome, reason, "contentSha256")
       SELECT $1, e."externalId", COALESCE(e."documentId", d.id), e.name, e.path, e.outcome, e.reason, e."contentSha256"
       FROM jsonb_to_recordset($3::jsonb) AS e("externalId" text, "documentId" uuid, name text, path text, outcome text, reason text, "contentSha256" text)
       LEFT JOIN connector.documents d ON d."dataSourceId" = $2 AND d."externalId" = e."externalId"
       ON CONFLICT ("syncRunId", "externalId") DO UPDATE SET "documentId" = EXCLUDED."documentId", name = EXCLUDED.name,
         path = EXCLUDED.path, outcome = EXCLUDED.outcome, reason = EXCLUDED.reason, "contentSha256" = EXCLUDED."contentSha256"`,
      [syncRunId, dataSourceId, JSON.stringify(rows)],
    );
  }

  /** Deletes the ledger rows of the data source's runs after its `keep` latest. */
  async forgetRunsBeyond(dataSourceId: string, keep: number): Promise<void> {
    await this.db.query(
      `DELETE FROM connector.sync_run_files WHERE "syncRunId" IN (
         SELECT id FROM connector.sync_runs WHERE "dataSourceId" = $1 ORDER BY "createdAt" DESC, id OFFSET $2)`,
      [dataSourceId, keep],
    );
  }

  /** The `Held` rows of runs whose hold was released: their reason says what became of it. */
  async noteReleased(transaction: Transaction, syncRunIds: string[], note: string): Promise<void> {
    if (!syncRunIds.length) return;
    await managerOf(transaction).query(
      `UPDATE connector.sync_run_files SET reason = reason || '. ' || $2
       WHERE "syncRunId" = ANY($1::uuid[]) AND outcome = 'Held'`,
      [syncRunIds, note],
    );
  }

  /** The ended extraction's outcome, on the row of the run that stored this content. */
  async extractionEnded(
    transaction: Transaction,
    documentId: string,
    contentSha256: string,
    change: Pick<LedgerEntry, 'outcome' | 'reason'>,
  ): Promise<void> {
    await managerOf(transaction).query(
      `UPDATE connector.sync_run_files SET outcome = $3, reason = $4
       WHERE "documentId" = $1 AND "contentSha256" = $2 AND outcome IN ('Added', 'Updated')`,
      [documentId, contentSha256, change.outcome, change.reason],
    );
  }

  /** A page of a run's files in externalId order, after `after`. */
  page(
    syncRunId: string,
    outcome: RunFileOutcome | null,
    after: string | null,
    limit: number,
  ): Promise<SyncRunFileView[]> {
    return this.db.query(
      `SELECT "externalId", "documentId", name, path, outcome, reason FROM connector.sync_run_files
       WHERE "syncRunId" = $1 AND ($2::text IS NULL OR outcome = $2) AND ($3::text IS NULL OR "externalId" > $3)
       ORDER BY "externalId" LIMIT $4`,
      [syncRunId, outcome, after, limit],
    );
  }

  /** Per folder path, the outcomes of the data source's latest started run for the files below it. */
  async outcomesBelow(dataSourceId: string, folderPaths: string[]): Promise<Map<string, RunFileOutcomeCounts>> {
    const counts = new Map<string, RunFileOutcomeCounts>(folderPaths.map((p) => [p, {}]));
    if (!folderPaths.length) return counts;
    const rows: Array<{ folder: string; outcome: RunFileOutcome; n: number }> = await this.db.query(
      `WITH latest AS (
         SELECT id FROM connector.sync_runs WHERE "dataSourceId" = $1 AND status <> 'Queued' ORDER BY "createdAt" DESC LIMIT 1
       )
       SELECT p.folder, f.outcome, count(*)::int AS n
       FROM unnest($2::text[]) AS p(folder)
       JOIN connector.sync_run_files f ON f."syncRunId" = (SELECT id FROM latest)
         AND f.path COLLATE "C" >= p.folder || '/' AND f.path COLLATE "C" < p.folder || '0'
       GROUP BY p.folder, f.outcome`,
      [dataSourceId, [...new Set(folderPaths)]],
    );
    for (const row of rows) counts.get(row.folder)![row.outcome] = row.n;
    return counts;
  }
}
