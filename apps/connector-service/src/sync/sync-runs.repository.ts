import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName, SyncTask } from './sync.jobs';
import type { SyncCountsView } from '@app/contracts/views';
import { ACTIVE_RUN_STATUSES, COUNT_NAMES, SYNC_RUN_MOVES, SyncMode, SyncRunStatus } from './sync-run-state';
import { SyncRunEntity } from './sync-run.entity';

export type CountDeltas = Partial<
  SyncCountsView & { bytesDownloaded: number; failedListings: number; listedBytes: number; plannedBytes: number }
>;

const UNIQUE_VIOLATION = '23505';

/** Sync runs and their tasks. Every state move is a conditional UPDATE that reports whether it won. */
@Injectable()
export class SyncRunsRepository {
  constructor(
    @InjectRepository(SyncRunEntity) private readonly runs: Repository<SyncRunEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** A new Queued run, or null when one is already active (the partial unique index decides). */
  async create(
    tenantId: string,
    dataSourceId: string,
    mode: SyncMode,
    createdBy: string | null = null,
  ): Promise<SyncRunEntity | null> {
    try {
      return await this.runs.save(this.runs.create({ tenantId, dataSourceId, mode, status: 'Queued', createdBy }));
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
      throw error;
    }
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
    return rows[0] ?? null;
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

  async hasCompletedRun(dataSourceId: string): Promise<boolean> {
    return this.runs.exists({
      where: [
        { dataSourceId, status: 'Succeeded' },
        { dataSourceId, status: 'PartiallySucceeded' },
      ],
    });
  }

  async move(
    id: string,
    to: SyncRunStatus,
    extra: { error?: string | null; transaction?: Transaction } = {},
  ): Promise<boolean> {
    const [, affected] = await this.manager(extra.transaction).query(
      `UPDATE connector.sync_runs SET status = $2,
         "startedAt" = CASE WHEN $2 = 'Running' THEN now() ELSE "startedAt" END,
         "finishedAt" = CASE WHEN $2 IN ('Succeeded', 'PartiallySucceeded', 'Failed', 'Cancelled') THEN now() ELSE "finishedAt" END,
         error = COALESCE($4, error)
       WHERE id = $1 AND status = ANY($3::text[])`,
      [id, to, SYNC_RUN_MOVES[to], extra.error ?? null],
    );
    return affected > 0;
  }

  async status(id: string): Promise<SyncRunStatus | null> {
    const rows: Array<{ status: SyncRunStatus }> = await this.db.query(
      'SELECT status FROM connector.sync_runs WHERE id = $1',
      [id],
    );
    return rows[0]?.status ?? null;
  }

  /** Inserts tasks not already known; returns only the new ones (whose jobs must be added and which `settle` counts). */
  async addTasks(transaction: Transaction, runId: string, tasks: SyncTask[]): Promise<SyncTask[]> {
    if (!tasks.length) return [];
    const rows: Array<{ key: string }> = await managerOf(transaction).query(
      `INSERT INTO connector.sync_tasks ("syncRunId", key, "jobName", payload)
       SELECT $1, t.key, t.name, t.data FROM jsonb_to_recordset($2::jsonb) AS t(key text, name text, data jsonb)
       ON CONFLICT DO NOTHING RETURNING key`,
      [runId, JSON.stringify(tasks)],
    );
    const fresh = new Set(rows.map((r) => r.key));
    return tasks.filter((t) => fresh.has(t.key));
  }

  /** Marks a task done; false when it already was (a retried or duplicated job). `settle` counts it. */
  async completeTask(transaction: Transaction, runId: string, key: string): Promise<boolean> {
    const [, affected] = await managerOf(transaction).query(
      'UPDATE connector.sync_tasks SET done = true WHERE "syncRunId" = $1 AND key = $2 AND NOT done',
      [runId, key],
    );
    return affected > 0;
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

  /** The run's status and whether one of its tasks is done (true when there is no such task), in one round trip. */
  async stepState(runId: string, key: string): Promise<{ status: SyncRunStatus | null; done: boolean }> {
    const rows: Array<{ status: SyncRunStatus; done: boolean | null }> = await this.db.query(
      `SELECT r.status, t.done FROM connector.sync_runs r LEFT JOIN connector.sync_tasks t ON t."syncRunId" = r.id AND t.key = $2 WHERE r.id = $1`,
      [runId, key],
    );
    return { status: rows[0]?.status ?? null, done: rows[0]?.done ?? true };
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

  /** Running runs started before `olderThan` that have no task yet: their start job was lost after it moved them. */
  async taskless(olderThan: Date, limit = 100): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT r.id FROM connector.sync_runs r
       WHERE r.status = 'Running' AND r."startedAt" < $1
         AND NOT EXISTS (SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = r.id)
       LIMIT $2`,
      [olderThan, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Pending tasks of running runs created before `olderThan`, to re-add jobs a crash may have lost. */
  async strandedTasks(olderThan: Date, limit = 1000): Promise<Array<{ syncRunId: string } & SyncTask>> {
    return this.db.query(
      `SELECT t."syncRunId", t.key, t."jobName" AS name, t.payload AS data FROM connector.sync_tasks t
       JOIN connector.sync_runs r ON r.id = t."syncRunId"
       WHERE NOT t.done AND r.status = 'Running' AND t."createdAt" < $1 LIMIT $2`,
      [olderThan, limit],
    );
  }

  /**
   * Applies a step's effects on the run in one update: its counts, and tasks added (+) or completed (-).
   * Returns the tasks still pending (the step that brings them to 0 ends the run), or null when the run
   * is no longer Running: the caller rolls its step back.
   */
  async settle(
    transaction: Transaction,
    runId: string,
    deltas: CountDeltas & { pendingTasks?: number },
  ): Promise<number | null> {
    const manager = managerOf(transaction);
    const names = [
      ...COUNT_NAMES,
      'bytesDownloaded',
      'failedListings',
      'listedBytes',
      'plannedBytes',
      'pendingTasks',
    ] as const;
    const sets = names.filter((n) => deltas[n]).map((n) => `"${n}" = "${n}" + ${Math.trunc(Number(deltas[n]))}`);
    // Only a Running run takes a step's effects: one cancelled (or ended) meanwhile keeps the counts it ended with.
    const rows: Array<{ pendingTasks: number }> = sets.length
      ? (
          await manager.query(
            `UPDATE connector.sync_runs SET ${sets.join(', ')} WHERE id = $1 AND status = 'Running' RETURNING "pendingTasks"`,
            [runId],
          )
        )[0]
      : await manager.query(`SELECT "pendingTasks" FROM connector.sync_runs WHERE id = $1 AND status = 'Running'`, [
          runId,
        ]);
    return rows[0]?.pendingTasks ?? null;
  }

  private manager(transaction?: Transaction): EntityManager {
    return transaction ? managerOf(transaction) : this.db.manager;
  }
}
