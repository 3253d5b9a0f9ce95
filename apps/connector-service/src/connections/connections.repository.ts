import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { OAuthConnectionEntity } from './oauth-connection.entity';

export type AuthorizedConnection = Pick<
  OAuthConnectionEntity,
  | 'tenantId'
  | 'userId'
  | 'providerId'
  | 'subject'
  | 'scopes'
  | 'accessTokenEncrypted'
  | 'refreshTokenEncrypted'
  | 'expiresAt'
  | 'secretVersion'
>;

@Injectable()
export class ConnectionsRepository {
  constructor(
    @InjectRepository(OAuthConnectionEntity) private readonly connections: Repository<OAuthConnectionEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** One connection per user and provider: authorizing again renews it in place, Active again. */
  async saveAuthorized(c: AuthorizedConnection): Promise<OAuthConnectionEntity> {
    const [row] = await this.db.query(
      `INSERT INTO connector.oauth_connections
         ("tenantId", "userId", "providerId", status, subject, scopes, "accessTokenEncrypted", "refreshTokenEncrypted", "expiresAt", "tokensIssuedAt", "secretVersion")
       VALUES ($1, $2, $3, 'Active', $4, $5, $6, $7, $8, clock_timestamp(), $9)
       ON CONFLICT ("tenantId", "userId", "providerId") DO UPDATE SET
         status = 'Active', subject = EXCLUDED.subject, scopes = EXCLUDED.scopes,
         "accessTokenEncrypted" = EXCLUDED."accessTokenEncrypted", "refreshTokenEncrypted" = EXCLUDED."refreshTokenEncrypted",
         "expiresAt" = EXCLUDED."expiresAt", "tokensIssuedAt" = EXCLUDED."tokensIssuedAt", "secretVersion" = EXCLUDED."secretVersion",
         "lastRefreshError" = NULL, "updatedAt" = now()
       RETURNING id`,
      [
        c.tenantId,
        c.userId,
        c.providerId,
        c.subject,
        c.scopes,
        c.accessTokenEncrypted,
        c.refreshTokenEncrypted,
        c.expiresAt,
        c.secretVersion,
      ],
    );
    return this.connections.findOneByOrFail({ id: row.id });
  }

  /**
   * Deletes the connection unless a data source uses it, in one statement, and returns it as deleted
   * (the tokens a refresh may have rotated meanwhile, to revoke); null when it was in use or gone.
   */
  async deleteUnused(id: string): Promise<OAuthConnectionEntity | null> {
    const [rows]: [OAuthConnectionEntity[], number] = await this.db.query(
      `DELETE FROM connector.oauth_connections c
       WHERE c.id = $1 AND NOT EXISTS (SELECT 1 FROM connector.data_sources d WHERE d."connectionId" = c.id)
       RETURNING c.*`,
      [id],
    );
    return rows[0] ?? null;
  }

  byId(id: string): Promise<OAuthConnectionEntity | null> {
    return this.connections.findOneBy({ id });
  }

  listOwn(tenantId: string, userId: string): Promise<OAuthConnectionEntity[]> {
    return this.connections.find({ where: { tenantId, userId }, order: { createdAt: 'ASC' } });
  }

  async countDataSourcesUsing(id: string): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await this.db.query(
      `SELECT count(*)::int AS count FROM connector.data_sources WHERE "connectionId" = $1`,
      [id],
    );
    return count;
  }

  /** The row, locked until the transaction ends: concurrent refreshers of one connection queue here. */
  lockForRefresh(transaction: Transaction, id: string): Promise<OAuthConnectionEntity | null> {
    return managerOf(transaction).findOne(OAuthConnectionEntity, {
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Stores the tokens of a refresh and returns the connection as it now is. */
  async storeRefreshed(
    transaction: Transaction,
    id: string,
    tokens: Pick<
      OAuthConnectionEntity,
      'accessTokenEncrypted' | 'refreshTokenEncrypted' | 'expiresAt' | 'scopes' | 'tokensIssuedAt' | 'secretVersion'
    >,
  ): Promise<OAuthConnectionEntity> {
    const manager = managerOf(transaction);
    await manager.update(OAuthConnectionEntity, { id }, { ...tokens, lastRefreshError: null });
    return manager.findOneByOrFail(OAuthConnectionEntity, { id });
  }

  async markNeedsReauth(transaction: Transaction, id: string, reason: string): Promise<void> {
    await managerOf(transaction).update(
      OAuthConnectionEntity,
      { id },
      { status: 'NeedsReauth', lastRefreshError: reason },
    );
  }
}
