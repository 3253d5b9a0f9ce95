import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { failedWith, SqlState } from '../common/sql-state';
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

  /**
   * One connection per user and provider: authorizing again renews it in place, Active again. Null when
   * the provider is gone (deleted during the code exchange).
   */
  async saveAuthorized(c: AuthorizedConnection): Promise<OAuthConnectionEntity | null> {
    let row: { id: string };
    try {
      [row] = await this.db.query(
        `INSERT INTO connector.oauth_connections
           ("tenantId", "userId", "providerId", status, subject, scopes, "accessTokenEncrypted", "refreshTokenEncrypted", "expiresAt", "tokensIssuedAt", "secretVersion")
         VALUES ($1, $2, $3, 'Active', $4, $5, $6, $7, $8, clock_timestamp(), $9)
         ON CONFLICT ("tenantId", "userId", "providerId") DO UPDATE SET
           status = 'Active', subject = EXCLUDED.subject, scopes = EXCLUDED.scopes,
           "accessTokenEncrypted" = EXCLUDED."accessTokenEncrypted", "refreshTokenEncrypted" = EXCLUDED."refreshTokenEncrypted",
           "expiresAt" = EXCLUDED."expiresAt", "tokensIssuedAt" = EXCLUDED."tokensIssuedAt", "secretVersion" = EXCLUDED."secretVersion",
           "lastRefreshError" = NULL, "refreshLeaseId" = NULL, "refreshLeaseUntil" = NULL, "updatedAt" = now()
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
    } catch (error) {
      if (failedWith(error, SqlState.ForeignKeyViolation)) return null;
      throw error;
    }
    return this.connections.findOneByOrFail({ id: row.id });
  }

  /** Locks the connection against deletion until the transaction ends; false when it is gone. */
  async holdForUse(transaction: Transaction, id: string): Promise<boolean> {
    const rows: unknown[] = await managerOf(transaction).query(
      `SELECT 1 FROM connector.oauth_connections WHERE id = $1 FOR KEY SHARE`,
      [id],
    );
    return rows.length > 0;
  }

  /**
   * Deletes the connection unless a data source uses it, and returns it as deleted (the tokens a refresh may
   * have rotated meanwhile, to revoke); null when it was in use or gone. Its row is locked first: a data source
   * being pointed at it (`holdForUse`) commits before the check, which then sees it.
   */
  async deleteUnused(id: string): Promise<OAuthConnectionEntity | null> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT 1 FROM connector.oauth_connections WHERE id = $1 FOR UPDATE`, [id]);
      const [rows]: [OAuthConnectionEntity[], number] = await manager.query(
        `DELETE FROM connector.oauth_connections c
         WHERE c.id = $1 AND NOT EXISTS (SELECT 1 FROM connector.data_sources d WHERE d."connectionId" = c.id)
         RETURNING c.*`,
        [id],
      );
      return rows[0] ?? null;
    });
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

  /**
   * Claims the refresh of a connection whose tokens are still those the caller read (`issuedAt`), unless
   * another refresh holds an unexpired claim: the returned row, or null when the claim went to someone else.
   */
  async takeRefreshLease(
    id: string,
    issuedAt: Date,
    leaseId: string,
    leaseMs: number,
  ): Promise<OAuthConnectionEntity | null> {
    const [rows]: [OAuthConnectionEntity[], number] = await this.db.query(
      `UPDATE connector.oauth_connections
       SET "refreshLeaseId" = $3, "refreshLeaseUntil" = now() + make_interval(secs => $4::float8 / 1000)
       WHERE id = $1 AND status = 'Active' AND date_trunc('milliseconds', "tokensIssuedAt") <= $2
         AND ("refreshLeaseUntil" IS NULL OR "refreshLeaseUntil" < now())
       RETURNING *`,
      [id, issuedAt, leaseId, leaseMs],
    );
    return rows[0] ?? null;
  }

  /** Gives a claim up without a change of tokens (the endpoint could not be reached). */
  async releaseRefreshLease(id: string, leaseId: string): Promise<void> {
    await this.connections.update({ id, refreshLeaseId: leaseId }, { refreshLeaseId: null, refreshLeaseUntil: null });
  }

  /** Stores the tokens of a refresh that still holds its claim; null when it lost it (the row was renewed or deleted). */
  async storeRefreshed(
    transaction: Transaction,
    id: string,
    leaseId: string,
    tokens: Pick<
      OAuthConnectionEntity,
      'accessTokenEncrypted' | 'refreshTokenEncrypted' | 'expiresAt' | 'scopes' | 'tokensIssuedAt' | 'secretVersion'
    >,
  ): Promise<OAuthConnectionEntity | null> {
    const manager = managerOf(transaction);
    const { affected } = await manager.update(
      OAuthConnectionEntity,
      { id, refreshLeaseId: leaseId },
      { ...tokens, lastRefreshError: null, refreshLeaseId: null, refreshLeaseUntil: null },
    );
    return affected ? manager.findOneByOrFail(OAuthConnectionEntity, { id }) : null;
  }

  /** The provider refused the refresh: the connection needs its user, unless the claim was lost meanwhile. */
  async markNeedsReauth(id: string, leaseId: string, reason: string): Promise<boolean> {
    const { affected } = await this.connections.update(
      { id, refreshLeaseId: leaseId },
      { status: 'NeedsReauth', lastRefreshError: reason, refreshLeaseId: null, refreshLeaseUntil: null },
    );
    return !!affected;
  }
}
