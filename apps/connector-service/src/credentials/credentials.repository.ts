import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, SelectQueryBuilder } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { CredentialEntity } from './credential.entity';

/**
 * Queries of credentials. A `DataSource`-scoped credential is visible only to those who may read its
 * data source (its members; every tenant admin); the others are visible to the whole tenant.
 */

/** Which data sources may use a credential. */
export type CredentialReach = Pick<CredentialEntity, 'scope' | 'projectId' | 'dataSourceId'>;

@Injectable()
export class CredentialsRepository {
  constructor(@InjectRepository(CredentialEntity) private readonly credentials: Repository<CredentialEntity>) {}

  save(credential: Partial<CredentialEntity>, transaction?: Transaction): Promise<CredentialEntity> {
    const manager = transaction ? managerOf(transaction) : this.credentials.manager;
    return manager.save(manager.create(CredentialEntity, credential));
  }

  /**
   * Keeps the credential from being deleted or having its scope changed until `transaction` ends, for a data
   * source being pointed at it; its scope as it stands then, or null when it is gone.
   */
  async holdForUse(transaction: Transaction, id: string): Promise<CredentialReach | null> {
    const rows: CredentialReach[] = await managerOf(transaction).query(
      `SELECT scope, "projectId", "dataSourceId" FROM connector.credentials WHERE id = $1 FOR KEY SHARE`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the credential for a change and reads it as it stands then (null when gone): data sources being
   * pointed at it commit first, or wait; so does another change, whose outcome this one reads.
   */
  lockForChange(transaction: Transaction, id: string): Promise<CredentialEntity | null> {
    return managerOf(transaction).findOne(CredentialEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async countDataSourcesOutside(transaction: Transaction, credentialId: string, projectId: string): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await managerOf(transaction).query(
      `SELECT count(*)::int AS count FROM connector.data_sources WHERE "credentialId" = $1 AND "projectId" <> $2`,
      [credentialId, projectId],
    );
    return count;
  }

  /** The data sources using the credential, as committed now (no lock: their own are taken before the credential's). */
  async dataSourcesUsing(transaction: Transaction, credentialId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await managerOf(transaction).query(
      `SELECT id FROM connector.data_sources WHERE "credentialId" = $1`,
      [credentialId],
    );
    return rows.map((row) => row.id);
  }

  /** Keeps a check's outcome, unless the login checked has changed meanwhile (its outcome says nothing of the new one). */
  async recordValidation(
    checked: Pick<CredentialEntity, 'id' | 'instanceUrl' | 'username' | 'passwordEncrypted'>,
    valid: boolean,
    error: string | null,
  ): Promise<void> {
    await this.credentials.manager.query(
      `UPDATE connector.credentials SET "validatedAt" = now(), "validationValid" = $5, "validationError" = $6
       WHERE id = $1 AND "instanceUrl" = $2 AND username = $3 AND "passwordEncrypted" = $4`,
      [checked.id, checked.instanceUrl, checked.username, checked.passwordEncrypted, valid, error],
    );
  }

  visible(tenantId: string, userId: string, admin: boolean): Promise<CredentialEntity[]> {
    return this.visibleQuery(tenantId, userId, admin).orderBy('c."createdAt"', 'ASC').getMany();
  }

  findVisible(tenantId: string, id: string, userId: string, admin: boolean): Promise<CredentialEntity | null> {
    return this.visibleQuery(tenantId, userId, admin).andWhere('c.id = :id', { id }).getOne();
  }

  /** For work done without a caller (workers, sessions of a data source already allowed to use it). */
  findInTenant(tenantId: string, id: string): Promise<CredentialEntity | null> {
    return this.credentials.findOneBy({ id, tenantId });
  }

  /**
   * Deletes the credential unless a data source uses it; false when one does. Its row is locked first: a data
   * source being pointed at it (`holdForUse`) commits before the check, which then sees it.
   */
  async deleteUnused(id: string): Promise<boolean> {
    return this.credentials.manager.transaction(async (manager) => {
      await manager.query(`SELECT 1 FROM connector.credentials WHERE id = $1 FOR UPDATE`, [id]);
      const [rows]: [Array<{ id: string }>, number] = await manager.query(
        `DELETE FROM connector.credentials c
         WHERE c.id = $1 AND NOT EXISTS (SELECT 1 FROM connector.data_sources d WHERE d."credentialId" = c.id)
         RETURNING c.id`,
        [id],
      );
      return rows.length > 0;
    });
  }

  /** Saves a data source's own credential in the transaction that creates the data source. */
  async saveForDataSource(
    transaction: Transaction,
    credential: Partial<CredentialEntity>,
    dataSourceId: string,
  ): Promise<string> {
    const manager = managerOf(transaction);
    return (await manager.save(manager.create(CredentialEntity, { ...credential, dataSourceId }))).id;
  }

  /** A data source's own credentials other than the one it now uses: nothing else may use them. */
  async deleteOwnedByDataSourceBut(transaction: Transaction, dataSourceId: string, credentialId: string) {
    await managerOf(transaction).query(`DELETE FROM connector.credentials WHERE "dataSourceId" = $1 AND id <> $2`, [
      dataSourceId,
      credentialId,
    ]);
  }

  async countDataSourcesUsing(credentialId: string): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await this.credentials.query(
      `SELECT count(*)::int AS count FROM connector.data_sources WHERE "credentialId" = $1`,
      [credentialId],
    );
    return count;
  }

  private visibleQuery(tenantId: string, userId: string, admin: boolean): SelectQueryBuilder<CredentialEntity> {
    const query = this.credentials.createQueryBuilder('c').where('c."tenantId" = :tenantId', { tenantId });
    if (admin) return query;
    return query.andWhere(
      '(c."dataSourceId" IS NULL OR EXISTS (SELECT 1 FROM connector.data_source_members m WHERE m."dataSourceId" = c."dataSourceId" AND m."userId" = :userId))',
      { userId },
    );
  }
}
