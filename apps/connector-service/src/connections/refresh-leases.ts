import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/crypto';
import { ConnectorEnv } from '../connector-env';
import { GUIDANCE } from './connection.exception';
import { ConnectionsRepository } from './connections.repository';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { OAuthErrorResponse, OAuthUnavailable } from './oauth-token-client';

export interface IssuedToken {
  accessToken: string;
  issuedAt: Date;
}

/** How a refresh ends for its caller: a token, a new authorization to ask for, or a provider away for now. */
export type RefreshOutcome = { token: IssuedToken } | { reauth: string } | { unavailable: string };
/** What a refresher finds: the outcome already, or a refresh to wait for, or the lease to make one. */
export type RefreshClaim =
  RefreshOutcome | { waitForOther: true } | { lease: string; connection: OAuthConnectionEntity };

/**
 * The lease on a connection's row that lets one refresher in any process call the token endpoint, with no
 * database connection held through the call; a refresher that dies keeps it only until it lapses.
 */
@Injectable()
export class RefreshLeases {
  private readonly aheadMs: number;
  /** Two calls at the token endpoint (the secret fallback) and the reads around them, with room to spare. */
  readonly leaseMs: number;

  constructor(
    private readonly repository: ConnectionsRepository,
    private readonly cipher: SecretCipher,
    env: ConnectorEnv,
  ) {
    this.aheadMs = env.OAUTH_REFRESH_AHEAD_SECONDS * 1000;
    this.leaseMs = 2 * env.OAUTH_HTTP_TIMEOUT_MS + 30_000;
  }

  /**
   * Still usable without a refresh: no expiry known, or not within the refresh-ahead window. A token that lives
   * shorter than the window is kept for half its life, else every use of it would refresh it.
   */
  isFresh(c: Pick<OAuthConnectionEntity, 'expiresAt' | 'tokensIssuedAt'>): boolean {
    if (!c.expiresAt) return true;
    // Its issue time is the database's clock, its expiry ours: a life read as negative (the clocks apart) keeps none.
    const lifeMs = Math.max(0, c.expiresAt.getTime() - c.tokensIssuedAt.getTime());
    return c.expiresAt.getTime() - Date.now() > Math.min(this.aheadMs, lifeMs / 2);
  }

  /** What the connection needs now: nothing (a token newer than `seenIssuedAt`), a new authorization, or a refresh. */
  async claim(id: string, seenIssuedAt: Date | null): Promise<RefreshClaim> {
    const c = await this.repository.byId(id);
    if (!c || c.status === 'NeedsReauth') return { reauth: c?.lastRefreshError ?? 'connection is gone' };
    const someoneRefreshed = seenIssuedAt !== null && c.tokensIssuedAt.getTime() > seenIssuedAt.getTime();
    if ((someoneRefreshed || seenIssuedAt === null) && this.isFresh(c)) return { token: this.issued(c) };
    if (!c.refreshTokenEncrypted) {
      // No offline_access: nothing to refresh with. The connection reads Expired once its token is.
      if (c.expiresAt && c.expiresAt.getTime() > Date.now() && seenIssuedAt === null) return { token: this.issued(c) };
      return { reauth: 'the access token expired and the provider issued no refresh token (offline_access)' };
    }
    const lease = randomUUID();
    const claimed = await this.repository.takeRefreshLease(id, c.tokensIssuedAt, lease, this.leaseMs);
    return claimed ? { lease, connection: claimed } : { waitForOther: true };
  }

  /** A refresh that failed: the provider's refusal asks for a new authorization (while the lease holds); else the lease goes. */
  async failed(c: OAuthConnectionEntity, lease: string, error: unknown): Promise<RefreshOutcome | 'leaseLost'> {
    if (error instanceof OAuthErrorResponse) {
      const reason = `refresh failed (${error.message}). ${GUIDANCE.refreshFailed}`;
      return (await this.repository.markNeedsReauth(c.id, lease, reason)) ? { reauth: reason } : 'leaseLost';
    }
    await this.repository.releaseRefreshLease(c.id, lease);
    if (error instanceof OAuthUnavailable) return { unavailable: error.message };
    throw error;
  }

  issued(c: OAuthConnectionEntity): IssuedToken {
    return { accessToken: this.cipher.decrypt(c.accessTokenEncrypted), issuedAt: c.tokensIssuedAt };
  }
}
