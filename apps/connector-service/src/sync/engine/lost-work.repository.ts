import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SELECTS_SOMETHING } from '../../data-sources/selects-something';
import { SyncTask } from '../sync.jobs';
import { ACTIVE_RUN_STATUSES } from '../sync-run-state';

/** What a crash or an outage can leave behind in running runs, for the sweep to pick up (read-only). */
@Injectable()
export class LostWorkRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Running runs with every task done: their last step committed but their end was lost (the database went
   * away, or the process died, before it). A run whose tasks are not created yet has none, so it is not one.
   */
  async unendedRuns(limit = 100): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT r.id FROM connector.sync_runs r
       WHERE r.status = 'Running' AND r."pendingTasks" = 0
         AND EXISTS (SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = r.id)
       LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Runs with no task yet whose start job may be lost: Running ones started before `olderThan` (lost after it moved
   * them), and Queued ones asked for before it (lost while waiting for a slot: Redis restarted without its data).
   * In random order: most Queued ones merely wait their turn, and a fixed hundred of them would keep a lost one out.
   */
  async taskless(olderThan: Date, limit = 100): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT r.id FROM connector.sync_runs r
       WHERE ((r.status = 'Running' AND r."startedAt" < $1) OR (r.status = 'Queued' AND r."createdAt" < $1))
         AND NOT EXISTS (SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = r.id)
       ORDER BY random() LIMIT $2`,
      [olderThan, limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Pending tasks of running runs created before `olderThan`, to re-add jobs a crash may have lost: each run's
   * oldest first, the runs taking turns, so a run with thousands of tasks waiting their turn does not keep
   * another run's lost task out of the sweep.
   */
  async strandedTasks(olderThan: Date, limit = 1000): Promise<Array<{ syncRunId: string } & SyncTask>> {
    return this.db.query(
      `SELECT s."syncRunId", s.key, s.name, s.data FROM (
         SELECT t.*, row_number() OVER (PARTITION BY t."syncRunId" ORDER BY t."createdAt", t.key) AS turn
         FROM connector.sync_runs r CROSS JOIN LATERAL (
           SELECT t."syncRunId", t.key, t."jobName" AS name, t.payload AS data, t."createdAt"
           FROM connector.sync_tasks t
           WHERE t."syncRunId" = r.id AND NOT t.done AND t."createdAt" < $1
           ORDER BY t."createdAt", t.key LIMIT $2) t
         WHERE r.status = 'Running'
       ) s ORDER BY s.turn, s."createdAt" LIMIT $2`,
      [olderThan, limit],
    );
  }

  /**
   * Data sources that select nothing but still have a run under way, documents or synced folders, and those moved to
   * another login whose former login's contents are still marked to go: the process that emptied their selection or
   * changed their login died before it settled them (UnselectedSources). In random order: a hundred whose settling
   * waits (their jobs already queued) would otherwise keep another tenant's out of every sweep.
   */
  async unsettledUnselected(limit = 100): Promise<Array<{ id: string; tenantId: string }>> {
    return this.db.query(
      `SELECT ds.id, ds."tenantId" FROM connector.data_sources ds
       WHERE ds."loginChangedAt" IS NOT NULL OR (NOT ds.selection @> $1::jsonb AND (
         EXISTS (SELECT 1 FROM connector.documents d WHERE d."dataSourceId" = ds.id)
         OR EXISTS (SELECT 1 FROM connector.synced_folders f WHERE f."dataSourceId" = ds.id)
         OR EXISTS (SELECT 1 FROM connector.sync_runs r WHERE r."dataSourceId" = ds.id AND r.status = ANY($2::text[]))))
       ORDER BY random() LIMIT $3`,
      [SELECTS_SOMETHING, ACTIVE_RUN_STATUSES, limit],
    );
  }
}
