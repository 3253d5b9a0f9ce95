import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';

/** The run a DataSourceSearchable is recorded for, with what the event needs. */
export interface SearchableRun {
  syncRunId: string;
  tenantId: string;
  projectId: string;
  documents: number;
  failed: number;
}

/** Claims a run's DataSourceSearchable: once, and only when no document of its data source waits for its text. */
@Injectable()
export class SearchableRepository {
  /**
   * Marks `syncRunId` (or, when null, the data source's last ended run) searchable if it is ended, not yet marked
   * and nothing of the data source is Pending. A lock per data source comes first, in a statement of its own: of
   * two transactions saving the last two texts at once, the second to get it reads the first one's committed text
   * (a fresh snapshot), so exactly one of them sees nothing pending. An advisory lock, not the data source's row
   * lock: a transaction deleting the data source holds that row and waits for the document rows these callers hold.
   */
  async claim(transaction: Transaction, dataSourceId: string, syncRunId: string | null): Promise<SearchableRun | null> {
    const manager = managerOf(transaction);
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`searchable:${dataSourceId}`]);
    // An UPDATE … RETURNING answers [rows, count] through TypeORM.
    const [rows]: [Array<{ syncRunId: string; tenantId: string; projectId: string }>, number] = await manager.query(
      `UPDATE connector.sync_runs r SET "searchableAt" = now()
       FROM connector.data_sources s
       WHERE s.id = r."dataSourceId" AND r."dataSourceId" = $1 AND r."finishedAt" IS NOT NULL AND r."searchableAt" IS NULL
         AND r.id = coalesce($2::uuid, (SELECT id FROM connector.sync_runs WHERE "dataSourceId" = $1 AND "finishedAt" IS NOT NULL ORDER BY "finishedAt" DESC LIMIT 1))
         AND NOT EXISTS (SELECT 1 FROM connector.documents d WHERE d."dataSourceId" = $1 AND d."extractionStatus" = 'Pending')
       RETURNING r.id AS "syncRunId", r."tenantId", s."projectId"`,
      [dataSourceId, syncRunId],
    );
    if (!rows.length) return null;
    const [counts]: Array<{ documents: number; failed: number }> = await manager.query(
      `SELECT count(*)::int AS documents, (count(*) FILTER (WHERE "extractionStatus" = 'Failed'))::int AS failed
       FROM connector.documents WHERE "dataSourceId" = $1`,
      [dataSourceId],
    );
    return { ...rows[0], ...counts };
  }
}
