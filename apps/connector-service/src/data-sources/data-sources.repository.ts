import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { CredentialEntity } from '../credentials/credential.entity';
import type { CredentialDraft } from '../credentials/credentials.service';
import { DataSourceMemberEntity } from './data-source-member.entity';
import { DataSourceEntity } from './data-source.entity';
import { INGESTION_MOVES, IngestionStatus } from './ingestion-status';

/** Queries of data sources and their members, and the conditional ingestion-status moves. */
@Injectable()
export class DataSourcesRepository {
  constructor(
    @InjectRepository(DataSourceEntity) readonly sources: Repository<DataSourceEntity>,
    @InjectRepository(DataSourceMemberEntity) readonly members: Repository<DataSourceMemberEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Saves a new data source with its creator as a member; with a credential draft, that credential is
   * saved as the data source's own (deleted with it).
   */
  create(
    fields: Omit<DataSourceEntity, 'id' | 'credentialId' | 'createdAt' | 'updatedAt'>,
    credential: string | CredentialDraft,
  ): Promise<DataSourceEntity> {
    return this.db.transaction(async (manager) => {
      const id = randomUUID();
      const credentialId =
        typeof credential === 'string'
          ? credential
          : (await manager.save(manager.create(CredentialEntity, { ...credential, dataSourceId: id }))).id;
      const created = await manager.save(manager.create(DataSourceEntity, { ...fields, id, credentialId }));
      await manager.insert(DataSourceMemberEntity, {
        dataSourceId: id,
        userId: fields.createdBy,
        addedBy: fields.createdBy,
      });
      return created;
    });
  }

  /** A data source's own credentials other than the one it now uses: nothing else may use them. */
  async dropOwnCredentialsBut(manager: EntityManager, dataSourceId: string, credentialId: string): Promise<void> {
    await manager.query(`DELETE FROM connector.credentials WHERE "dataSourceId" = $1 AND id <> $2`, [
      dataSourceId,
      credentialId,
    ]);
  }

  findInTenant(tenantId: string, id: string): Promise<DataSourceEntity | null> {
    return this.sources.findOneBy({ tenantId, id });
  }

  find(id: string): Promise<DataSourceEntity | null> {
    return this.sources.findOneBy({ id });
  }

  /** Throws when there is no such data source. */
  get(id: string): Promise<DataSourceEntity> {
    return this.sources.findOneByOrFail({ id });
  }

  async isMember(dataSourceId: string, userId: string): Promise<boolean> {
    return this.members.existsBy({ dataSourceId, userId });
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

  /** Ids of the tenant's data sources the user may read, optionally within one project. */
  async readableIds(tenantId: string, userId: string, admin: boolean, projectId?: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT ds.id FROM connector.data_sources ds
       WHERE ds."tenantId" = $1 AND ($2::uuid IS NULL OR ds."projectId" = $2::uuid)
         AND ($3 OR EXISTS (SELECT 1 FROM connector.data_source_members m WHERE m."dataSourceId" = ds.id AND m."userId" = $4))`,
      [tenantId, projectId ?? null, admin, userId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Moves the ingestion status if the current one allows it; a conditional UPDATE, so concurrent
   * workers cannot both win. Returns whether this caller moved it.
   */
  async moveStatus(id: string, to: IngestionStatus, within?: EntityManager | Transaction): Promise<boolean> {
    const manager = within ? managerOf(within as Transaction) : this.db.manager;
    const [, affected] = await manager.query(
      `UPDATE connector.data_sources SET "ingestionStatus" = $2, "updatedAt" = now()
       WHERE id = $1 AND "ingestionStatus" = ANY($3::text[])`,
      [id, to, INGESTION_MOVES[to]],
    );
    return affected > 0;
  }

  countUsingCredential(credentialId: string): Promise<number> {
    return this.sources.countBy({ credentialId });
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
