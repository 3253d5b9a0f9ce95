import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { ACTIVE_RUN_STATUSES, SYNC_RUN_MOVES, SyncMode, SyncRunStatus } from './sync-run-state';
import type { RunPace } from './run-progress';
import { SyncRunEntity } from './sync-run.entity';
import type { EndedRunStatus } from './sync-run-steps';

/** Sync runs (their tasks and steps: RunStepsRepository). Every state move is a conditional UPDATE that reports whether it won. */
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
