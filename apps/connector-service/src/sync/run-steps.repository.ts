import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName, SyncTask } from './sync.jobs';
import { COUNT_NAMES, SyncRunStatus } from './sync-run-state';
import type { ListedSoFar, SettledStep, StepEffects, StepState } from './sync-run-steps';

const STEP_COUNTS = [
  ...COUNT_NAMES,
  'bytesDownloaded',
  'failedListings',
  'listedBytes',
  'plannedBytes',
  'listedPages',
] as const;

/**
 * A run's steps: its tasks (one per listing page or ingest batch, keyed so a retried job finds its own) and what each
 * step adds to the run's counts, in the step's transaction.
 */
@Injectable()
export class RunStepsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The step's run and its task, in one round trip. */
  async stepState(runId: string, key: string): Promise<StepState> {
    const rows: Array<{
      status: SyncRunStatus;
      dataSourceId: string;
      done: boolean | null;
      listingStopped: boolean;
      listedBytes: string;
    }> = await this.db.query(
      `SELECT r.status, r."dataSourceId", t.done, r."listingStopped", r."listedBytes" FROM connector.sync_runs r
       LEFT JOIN connector.sync_tasks t ON t."syncRunId" = r.id AND t.key = $2 WHERE r.id = $1`,
      [runId, key],
    );
    return {
      status: rows[0]?.status ?? null,
      dataSourceId: rows[0]?.dataSourceId ?? null,
      done: rows[0]?.done ?? true,
      listingStopped: rows[0]?.listingStopped ?? false,
      listedBytes: Number(rows[0]?.listedBytes ?? 0),
    };
  }

  /**
   * Takes the run's listing lock for the rest of the transaction (its listings commit one at a time, and so
   * do the batches that bring bytes beyond their files' listed sizes; other steps do not take it) and reads
   * what the run took so far: what is weighed against the run's limits sees every page and batch committed
   * before it.
   */
  async lockListing(transaction: Transaction, runId: string): Promise<ListedSoFar> {
    const manager = managerOf(transaction);
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`sync-run-listing:${runId}`]);
    const rows: Array<{ discovered: number; listedBytes: string; listedPages: number; listingStopped: boolean }> =
      await manager.query(
        'SELECT discovered, "listedBytes", "listedPages", "listingStopped" FROM connector.sync_runs WHERE id = $1',
        [runId],
      );
    const row = rows[0] ?? { discovered: 0, listedBytes: '0', listedPages: 0, listingStopped: true };
    return { ...row, listedBytes: Number(row.listedBytes) };
  }

  /** Tasks of the run not done yet, at most `limit`. */
  openTasks(runId: string, limit: number): Promise<SyncTask[]> {
    return this.db.query(
      `SELECT key, "jobName" AS name, payload AS data FROM connector.sync_tasks WHERE "syncRunId" = $1 AND NOT done LIMIT $2`,
      [runId, limit],
    );
  }

  /** A folder's open page task (at most one is open at a time: each page adds the next when it is done). */
  async openPageOf(runId: string, folderId: string): Promise<SyncTask<SyncJobName.ListFolder> | null> {
    const rows: Array<SyncTask<SyncJobName.ListFolder>> = await this.db.query(
      `SELECT key, "jobName" AS name, payload AS data FROM connector.sync_tasks
       WHERE "syncRunId" = $1 AND NOT done AND "jobName" = $2 AND payload->>'folderId' = $3 LIMIT 1`,
      [runId, SyncJobName.ListFolder, folderId],
    );
    return rows[0] ?? null;
  }

  /** Locks a task's row for the rest of the transaction; false when the task is done already. */
  async lockOpenTask(transaction: Transaction, runId: string, key: string): Promise<boolean> {
    const rows: Array<{ done: boolean }> = await managerOf(transaction).query(
      'SELECT done FROM connector.sync_tasks WHERE "syncRunId" = $1 AND key = $2 FOR UPDATE',
      [runId, key],
    );
    return rows.length > 0 && !rows[0].done;
  }

  async pendingTasks(runId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.db.query(
      'SELECT "pendingTasks" AS n FROM connector.sync_runs WHERE id = $1',
      [runId],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Takes a step's effects in its transaction: creates its new tasks, marks its own done, and adds its counts
   * and the tasks it added (+) or completed (-) to the run in one update. The run's row is locked last, and
   * stays locked until the commit, so the caller does nothing after this.
   */
  async settleStep(transaction: Transaction, runId: string, step: StepEffects): Promise<SettledStep> {
    const manager = managerOf(transaction);
    const added = await this.addTasks(manager, runId, step.adds ?? []);
    if (step.completes !== undefined && !(await this.completeTask(manager, runId, step.completes))) return 'taskDone';
    const deltas = { ...step.counts, pendingTasks: added.length - (step.completes !== undefined ? 1 : 0) };
    const sets = [...STEP_COUNTS, 'pendingTasks' as const]
      .filter((n) => deltas[n])
      .map((n) => `"${n}" = "${n}" + ${Math.trunc(Number(deltas[n]))}`);
    if (step.limit)
      sets.push(
        `"limitReached" = COALESCE("limitReached", $2)`,
        `"listingStopped" = "listingStopped" OR ${step.limit.stopsListing}`,
      );
    // Only a Running run takes a step's effects: one cancelled (or ended) meanwhile keeps the counts it ended with.
    const rows: Array<{ pendingTasks: number }> = sets.length
      ? (
          await manager.query(
            `UPDATE connector.sync_runs SET ${sets.join(', ')} WHERE id = $1 AND status = 'Running' RETURNING "pendingTasks"`,
            step.limit ? [runId, step.limit.reached] : [runId],
          )
        )[0]
      : await manager.query(`SELECT "pendingTasks" FROM connector.sync_runs WHERE id = $1 AND status = 'Running'`, [
          runId,
        ]);
    return rows[0] ? { added, pending: rows[0].pendingTasks } : 'notRunning';
  }

  /**
   * Stamps `listedAt` once no folder listing of the run is open. Called after the commit that closed a
   * folder's last page (or gave a listing up), outside the run's row lock, which every page of the run
   * holds from `settleStep` to its commit: the last listing to commit sees every other one done.
   */
  async stampIfListed(runId: string): Promise<void> {
    await this.db.query(
      `UPDATE connector.sync_runs SET "listedAt" = now()
       WHERE id = $1 AND "listedAt" IS NULL AND NOT EXISTS (
         SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = $1 AND NOT t.done AND t."jobName" = $2)`,
      [runId, SyncJobName.ListFolder],
    );
  }

  /** Inserts tasks not already known; returns only the new ones (whose jobs must be added). */
  private async addTasks(manager: EntityManager, runId: string, tasks: SyncTask[]): Promise<SyncTask[]> {
    if (!tasks.length) return [];
    const rows: Array<{ key: string }> = await manager.query(
      `INSERT INTO connector.sync_tasks ("syncRunId", key, "jobName", payload)
       SELECT $1, t.key, t.name, t.data FROM jsonb_to_recordset($2::jsonb) AS t(key text, name text, data jsonb)
       ON CONFLICT DO NOTHING RETURNING key`,
      [runId, JSON.stringify(tasks)],
    );
    // Each new key once: two tasks of one key (the same files twice) are one row, counted once as pending.
    const fresh = new Set(rows.map((r) => r.key));
    return tasks.filter((t) => fresh.delete(t.key));
  }

  /** Marks a task done; false when it already was (a retried or duplicated job). */
  private async completeTask(manager: EntityManager, runId: string, key: string): Promise<boolean> {
    const [, affected] = await manager.query(
      'UPDATE connector.sync_tasks SET done = true WHERE "syncRunId" = $1 AND key = $2 AND NOT done',
      [runId, key],
    );
    return affected > 0;
  }
}
