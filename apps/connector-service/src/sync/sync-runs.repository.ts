import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName, SyncTask } from './sync.jobs';
import { ACTIVE_RUN_STATUSES, COUNT_NAMES, SYNC_RUN_MOVES, SyncMode, SyncRunStatus } from './sync-run-state';
import type { RunPace } from './run-progress';
import { SyncRunEntity } from './sync-run.entity';
import type { EndedRunStatus, ListedSoFar, SettledStep, StepEffects, StepState } from './sync-run-steps';

const STEP_COUNTS = [
  ...COUNT_NAMES,
  'bytesDownloaded',
  'failedListings',
  'listedBytes',
  'plannedBytes',
  'listedPages',
] as const;

/** Sync runs and their tasks. Every state move is a conditional UPDATE that reports whether it won. */
@Injectable()
export class SyncRunsRepository {
  constructor(
    @InjectRepository(SyncRunEntity) private readonly runs: Repository<SyncRunEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** A new Queued run, or null when one is already active (the partial unique index decides). */
  async create(
    transaction: Transaction,
    tenantId: string,
    dataSourceId: string,
    mode: SyncMode,
    createdBy: string | null = null,
  ): Promise<SyncRunEntity | null> {
    const manager = managerOf(transaction);
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(SyncRunEntity)
      .values({ tenantId, dataSourceId, mode, status: 'Queued', createdBy })
      .orIgnore()
      .returning('id')
      .execute();
    const id = (inserted.raw as Array<{ id: string }>)[0]?.id;
    return id ? manager.findOneByOrFail(SyncRunEntity, { id }) : null;
  }

  find(id: string, transaction?: Transaction): Promise<SyncRunEntity | null> {
    return this.manager(transaction).findOneBy(SyncRunEntity, { id });
  }

  /** Throws when there is no such run. */
  get(id: string): Promise<SyncRunEntity> {
    return this.runs.findOneByOrFail({ id });
  }

  findInTenant(tenantId: string, id: string): Promise<SyncRunEntity | null> {
    return this.runs.findOneBy({ id, tenantId });
  }

  /** The data source's latest runs, newest first. */
  latestOf(dataSourceId: string, limit: number): Promise<SyncRunEntity[]> {
    return this.runs.find({ where: { dataSourceId }, order: { createdAt: 'DESC' }, take: limit });
  }

  /** The run, its row locked for the rest of the transaction. */
  async lock(transaction: Transaction, id: string): Promise<SyncRunEntity | null> {
    const rows: SyncRunEntity[] = await managerOf(transaction).query(
      'SELECT * FROM connector.sync_runs WHERE id = $1 FOR UPDATE',
      [id],
    );
    return rows[0] ? hydrated(rows[0]) : null;
  }

  findActive(dataSourceId: string): Promise<SyncRunEntity | null> {
    return this.runs
      .createQueryBuilder('r')
      .where('r."dataSourceId" = :dataSourceId AND r.status = ANY(:active)', {
        dataSourceId,
        active: ACTIVE_RUN_STATUSES,
      })
      .getOne();
  }

  /** A run of the data source completed since its documents were last removed (a selection left empty), if ever. */
  async hasCompletedRun(dataSourceId: string): Promise<boolean> {
    const rows: unknown[] = await this.runs.query(
      `SELECT 1 FROM connector.sync_runs r JOIN connector.data_sources ds ON ds.id = r."dataSourceId"
       WHERE r."dataSourceId" = $1 AND r.status IN ('Succeeded', 'PartiallySucceeded')
         AND (ds."contentsClearedAt" IS NULL OR r."createdAt" > ds."contentsClearedAt")
       LIMIT 1`,
      [dataSourceId],
    );
    return rows.length > 0;
  }

  /** Queued → Running: the run as it started, or null when it was not Queued. */
  begin(transaction: Transaction, id: string): Promise<SyncRunEntity | null> {
    return this.move(transaction, id, 'Running', null, 0);
  }

  /**
   * Ends the run (from the states `SYNC_RUN_MOVES` allows), counting `deleted` more deletions; the run as it
   * ended, or null when it was not in a state to end so (another ending won).
   */
  end(
    transaction: Transaction,
    id: string,
    to: EndedRunStatus,
    ending: { error: string | null; deleted?: number },
  ): Promise<SyncRunEntity | null> {
    return this.move(transaction, id, to, ending.error, ending.deleted ?? 0);
  }

  /** The tenant of a run; null when there is no such run. */
  async tenantOf(runId: string): Promise<string | null> {
    const rows: Array<{ tenantId: string }> = await this.db.query(
      'SELECT "tenantId" FROM connector.sync_runs WHERE id = $1',
      [runId],
    );
    return rows[0]?.tenantId ?? null;
  }

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

  /** Counts bytes received by a download in progress (outside any step's transaction: they are not committed work). */
  async addStreamedBytes(runId: string, bytes: number): Promise<void> {
    await this.db.query(
      `UPDATE connector.sync_runs SET "bytesStreamed" = "bytesStreamed" + $2 WHERE id = $1 AND status = 'Running'`,
      [runId, Math.trunc(bytes)],
    );
  }

  /** Stores a new pace sample, unless another reader stored one since `lastAt` (its sample stands). */
  async recordPace(runId: string, pace: RunPace, lastAt: string | null): Promise<void> {
    await this.db.query(
      `UPDATE connector.sync_runs SET pace = $2::jsonb
       WHERE id = $1 AND status = 'Running' AND (pace->'last'->>'at') IS NOT DISTINCT FROM $3`,
      [runId, JSON.stringify(pace), lastAt],
    );
  }

  private async move(
    transaction: Transaction,
    id: string,
    to: SyncRunStatus,
    error: string | null,
    deleted: number,
  ): Promise<SyncRunEntity | null> {
    const [rows]: [SyncRunEntity[], number] = await managerOf(transaction).query(
      `UPDATE connector.sync_runs SET status = $2,
         "startedAt" = CASE WHEN $2 = 'Running' THEN now() ELSE "startedAt" END,
         "finishedAt" = CASE WHEN $2 IN ('Succeeded', 'PartiallySucceeded', 'Failed', 'Cancelled') THEN now() ELSE "finishedAt" END,
         error = COALESCE($4, error), deleted = deleted + $5
       WHERE id = $1 AND status = ANY($3::text[]) RETURNING *`,
      [id, to, SYNC_RUN_MOVES[to], error, deleted],
    );
    return rows[0] ? hydrated(rows[0]) : null;
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

  private manager(transaction?: Transaction): EntityManager {
    return transaction ? managerOf(transaction) : this.db.manager;
  }
}

/** A row read with SQL as the entity reads it: PostgreSQL's bigint columns come back as strings. */
function hydrated(row: SyncRunEntity): SyncRunEntity {
  return Object.assign(new SyncRunEntity(), row, {
    bytesDownloaded: Number(row.bytesDownloaded),
    listedBytes: Number(row.listedBytes),
    plannedBytes: Number(row.plannedBytes),
    bytesStreamed: Number(row.bytesStreamed),
  });
}
