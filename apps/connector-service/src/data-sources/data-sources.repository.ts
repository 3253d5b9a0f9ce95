import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { DataSourceEntity } from './data-source.entity';
import { INGESTION_MOVES, IngestionStatus } from './ingestion-status';
import { originOf } from './instance-origin';
import type { SelectionMark } from '@app/contracts/views';

export type DataSourceFields = Omit<DataSourceEntity, 'createdAt' | 'updatedAt' | 'credentialInstanceUrl'>;
export type DataSourceChanges = Partial<
  Pick<DataSourceEntity, 'name' | 'credentialId' | 'connectionId' | 'scheduleIntervalMinutes' | 'nextScheduledSyncAt'>
>;

/** Queries of data sources, and the conditional ingestion-status moves. */
/** The status the data source `ds`'s latest completed run left it in; none when it has completed none. */
const LATEST_COMPLETED_STATUS = `
  SELECT CASE r.status WHEN 'Succeeded' THEN 'Synced' ELSE 'PartiallySynced' END FROM connector.sync_runs r
  WHERE r."dataSourceId" = ds.id AND r.status IN ('Succeeded', 'PartiallySucceeded')
    AND (ds."contentsClearedAt" IS NULL OR r."createdAt" > ds."contentsClearedAt")
  ORDER BY r."createdAt" DESC LIMIT 1`;

@Injectable()
export class DataSourcesRepository {
  constructor(
    @InjectRepository(DataSourceEntity) private readonly sources: Repository<DataSourceEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  create(transaction: Transaction, fields: DataSourceFields): Promise<DataSourceEntity> {
    const manager = managerOf(transaction);
    return manager.save(manager.create(DataSourceEntity, fields));
  }

  find(id: string, transaction?: Transaction): Promise<DataSourceEntity | null> {
    const manager = transaction ? managerOf(transaction) : this.db.manager;
    return manager.findOneBy(DataSourceEntity, { id });
  }

  /** Throws when there is no such data source. */
  get(id: string, transaction?: Transaction): Promise<DataSourceEntity> {
    const manager = transaction ? managerOf(transaction) : this.db.manager;
    return manager.findOneByOrFail(DataSourceEntity, { id });
  }

  /**
   * The data source as it is now, its row locked until the transaction ends: a change that read it earlier
   * checks here that what it worked from still holds. Null when it was deleted meanwhile.
   */
  async lockForChange(transaction: Transaction, id: string): Promise<DataSourceEntity | null> {
    const manager = managerOf(transaction);
    const locked: Array<{ id: string }> = await manager.query(
      'SELECT id FROM connector.data_sources WHERE id = $1 FOR UPDATE',
      [id],
    );
    return locked.length ? manager.findOneBy(DataSourceEntity, { id }) : null;
  }

  /**
   * Locks the data sources using the credential until the transaction ends (in one order, so two such locks never
   * wait on each other); their ids. A change of the credential takes these before the credential's own lock.
   */
  async lockUsingCredential(transaction: Transaction, credentialId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await managerOf(transaction).query(
      'SELECT id FROM connector.data_sources WHERE "credentialId" = $1 ORDER BY id FOR UPDATE',
      [credentialId],
    );
    return rows.map((row) => row.id);
  }

  findInTenant(tenantId: string, id: string): Promise<DataSourceEntity | null> {
    return this.sources.findOneBy({ tenantId, id });
  }

  usingConnection(connectionId: string): Promise<DataSourceEntity[]> {
    return this.sources.findBy({ connectionId });
  }

  /** The project's data sources the user may read (all of them for a tenant admin). */
  listReadable(tenantId: string, projectId: string, userId: string, admin: boolean): Promise<DataSourceEntity[]> {
    const query = this.sources
      .createQueryBuilder('ds')
      .where('ds."tenantId" = :tenantId AND ds."projectId" = :projectId', { tenantId, projectId })
      .orderBy('ds."createdAt"', 'ASC');
    if (!admin) {
      query.andWhere(
        'EXISTS (SELECT 1 FROM connector.data_source_members m WHERE m."dataSourceId" = ds.id AND m."userId" = :userId)',
        { userId },
      );
    }
    return query.getMany();
  }

  /** The project's data sources, each with whether the user may read it (every one for a tenant admin). */
  projectReach(
    tenantId: string,
    projectId: string,
    userId: string,
    admin: boolean,
  ): Promise<Array<{ id: string; readable: boolean }>> {
    return this.db.query(
      `SELECT ds.id, ($3 OR EXISTS (
         SELECT 1 FROM connector.data_source_members m WHERE m."dataSourceId" = ds.id AND m."userId" = $4)) AS readable
       FROM connector.data_sources ds WHERE ds."tenantId" = $1 AND ds."projectId" = $2::uuid`,
      [tenantId, projectId, admin, userId],
    );
  }

  async update(transaction: Transaction, id: string, changes: DataSourceChanges): Promise<void> {
    if (Object.keys(changes).length) await managerOf(transaction).update(DataSourceEntity, { id }, changes);
  }

  /**
   * Records the origin its credential points at now as the one its creator's tokens may go to (its
   * creator or an admin confirmed it). Returns that origin.
   */
  async recordInstanceOrigin(transaction: Transaction, id: string): Promise<string | null> {
    const manager = managerOf(transaction);
    const [found]: Array<{ instanceUrl: string }> = await manager.query(
      `SELECT c."instanceUrl" FROM connector.data_sources ds JOIN connector.credentials c ON c.id = ds."credentialId"
       WHERE ds.id = $1 FOR SHARE OF c`,
      [id],
    );
    if (!found) return null; // deleted meanwhile
    const instanceOrigin = originOf(found.instanceUrl);
    await manager.update(DataSourceEntity, { id }, { instanceOrigin });
    return instanceOrigin;
  }

  /** The selection and the document-system identity it was made as (null: discarded). */
  async saveSelection(
    transaction: Transaction,
    id: string,
    selection: SelectionMark[],
    selectionSubject: string | null,
  ): Promise<void> {
    await managerOf(transaction).update(DataSourceEntity, { id }, { selection, selectionSubject });
  }

  /** Its documents, runs, members and own credential go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<void> {
    await this.sources.delete({ id });
  }

  /**
   * Moves the ingestion status if the current one allows it; a conditional UPDATE, so concurrent
   * workers cannot both win. Returns whether this caller moved it.
   */
  async moveStatus(id: string, to: IngestionStatus, transaction?: Transaction): Promise<boolean> {
    const manager = transaction ? managerOf(transaction) : this.db.manager;
    const [, affected] = await manager.query(
      `UPDATE connector.data_sources SET "ingestionStatus" = $2, "updatedAt" = now()
       WHERE id = $1 AND "ingestionStatus" = ANY($3::text[])`,
      [id, to, INGESTION_MOVES[to]],
    );
    return affected > 0;
  }

  /**
   * Whether the data source's OAuth connection can no longer be used without a new authorization: its refresh
   * failed (NeedsReauth), or it has no refresh token and its access token has expired. Read in a join: the
   * connections' repository owns that table.
   */
  async connectionLost(id: string): Promise<boolean> {
    const rows: Array<{ lost: boolean }> = await this.db.query(
      `SELECT (c.status = 'NeedsReauth' OR (c."refreshTokenEncrypted" IS NULL AND c."expiresAt" <= now())) AS lost
       FROM connector.data_sources ds JOIN connector.oauth_connections c ON c.id = ds."connectionId" WHERE ds.id = $1`,
      [id],
    );
    return rows[0]?.lost ?? false;
  }

  /**
   * Syncing → where its latest completed run left it (Synced or PartiallySynced), or Pending when it has never
   * completed one: a cancelled run's data source goes back to where it was. One whose run was still queued
   * never left that status (nor does a NeedsReauth one), so nothing moves then.
   */
  async backFromCancelledRun(id: string, transaction: Transaction): Promise<void> {
    await managerOf(transaction).query(
      `UPDATE connector.data_sources ds SET "ingestionStatus" = COALESCE((${LATEST_COMPLETED_STATUS}), 'Pending'),
         "updatedAt" = now()
       WHERE ds.id = $1 AND ds."ingestionStatus" = 'Syncing'`,
      [id],
    );
  }

  /**
   * NeedsReauth → where its latest completed run left it (Synced or PartiallySynced: its documents are there),
   * or Pending when it has never completed one. Runs are read in a join: the sync runs' repository owns them.
   */
  async reauthorized(id: string, transaction: Transaction): Promise<boolean> {
    const [, affected] = await managerOf(transaction).query(
      `UPDATE connector.data_sources ds SET "ingestionStatus" = COALESCE((${LATEST_COMPLETED_STATUS}), 'Pending'),
         "updatedAt" = now()
       WHERE ds.id = $1 AND ds."ingestionStatus" = 'NeedsReauth'`,
      [id],
    );
    return affected > 0;
  }

  async markNeedsReauthForConnection(connectionId: string): Promise<number> {
    const [, affected] = await this.db.query(
      `UPDATE connector.data_sources SET "ingestionStatus" = 'NeedsReauth', "updatedAt" = now()
       WHERE "connectionId" = $1 AND "ingestionStatus" = ANY($2::text[])`,
      [connectionId, INGESTION_MOVES.NeedsReauth],
    );
    return affected;
  }
}
