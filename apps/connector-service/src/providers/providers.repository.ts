import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { OAuthProviderEntity } from './oauth-provider.entity';

export type ProviderFields = Omit<OAuthProviderEntity, 'id' | 'createdAt' | 'updatedAt'>;

/** Queries of the tenants' OAuth client registrations. */
@Injectable()
export class ProvidersRepository {
  constructor(@InjectRepository(OAuthProviderEntity) private readonly providers: Repository<OAuthProviderEntity>) {}

  create(transaction: Transaction, fields: ProviderFields): Promise<OAuthProviderEntity> {
    const manager = managerOf(transaction);
    return manager.save(manager.create(OAuthProviderEntity, fields));
  }

  listInTenant(tenantId: string): Promise<OAuthProviderEntity[]> {
    return this.providers.find({ where: { tenantId }, order: { createdAt: 'ASC' } });
  }

  findInTenant(tenantId: string, id: string): Promise<OAuthProviderEntity | null> {
    return this.providers.findOneBy({ id, tenantId });
  }

  /** The row, locked until the transaction ends: concurrent updates of one provider queue here. */
  lockInTenant(transaction: Transaction, tenantId: string, id: string): Promise<OAuthProviderEntity | null> {
    return managerOf(transaction).findOne(OAuthProviderEntity, {
      where: { id, tenantId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  save(transaction: Transaction, provider: OAuthProviderEntity): Promise<OAuthProviderEntity> {
    return managerOf(transaction).save(provider);
  }

  /**
   * Deletes the provider unless a data source uses it (through a connection); its
   * secrets, pending authorizations and connections go with it (ON DELETE CASCADE). False when in use.
   */
  async deleteUnused(id: string): Promise<boolean> {
    return this.providers.manager.transaction(async (manager) => {
      // Its connections' rows first: a data source being pointed at one of them commits before the check.
      await manager.query(`SELECT 1 FROM connector.oauth_connections WHERE "providerId" = $1 FOR UPDATE`, [id]);
      const [rows]: [Array<{ id: string }>, number] = await manager.query(
        `DELETE FROM connector.oauth_providers p
         WHERE p.id = $1 AND NOT EXISTS (
           SELECT 1 FROM connector.data_sources ds JOIN connector.oauth_connections c ON c.id = ds."connectionId"
           WHERE c."providerId" = p.id)
         RETURNING p.id`,
        [id],
      );
      return rows.length > 0;
    });
  }

  /** How many data sources depend on a provider (through their users' connections). */
  async countDataSourcesUsing(providerId: string): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await this.providers.query(
      `SELECT count(*)::int AS count FROM connector.data_sources ds
       JOIN connector.oauth_connections c ON c.id = ds."connectionId"
       WHERE c."providerId" = $1`,
      [providerId],
    );
    return count;
  }
}
