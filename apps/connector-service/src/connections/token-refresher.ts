import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { SecretCipher } from '@app/crypto';
import { OutageRider, Transactions } from '@app/database';
import { DocumentSystemException } from '../document-system/document-system.exception';
import { ConnectorMetrics } from '../metrics/connector-metrics';
import { ProviderSecretsRepository } from '../providers/provider-secrets.repository';
import { ProvidersService } from '../providers/providers.service';
import { ConnectionEvents } from './connection-events';
import { GUIDANCE } from './connection.exception';
import { ConnectionsRepository } from './connections.repository';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import {
  OAuthClientAuth,
  OAuthErrorResponse,
  OAuthTokenClient,
  OAuthUnavailable,
  TokenSet,
} from './oauth-token-client';
import { TokenRevoker } from './token-revoker';

export interface IssuedToken {
  accessToken: string;
  issuedAt: Date;
}

type Outcome = { token: IssuedToken } | { reauth: string } | { unavailable: string };
/** What a refresher finds: the outcome already, or a refresh to wait for, or the claim on one to make. */
type Claim = Outcome | { waitForOther: true } | { lease: string; connection: OAuthConnectionEntity };

/** How often a refresher waiting for another's looks at the connection again. */
const WAIT_STEP_MS = 200;

/**
 * Refreshes a connection's tokens under a lease on its row, so concurrent refreshers in any process cause
 * one call at the token endpoint, and no database connection waits on that call; the rotated refresh token
 * is stored only while the lease holds.
 */
@Injectable()
export class TokenRefresher {
  private readonly logger = new Logger(TokenRefresher.name);
  private readonly aheadMs: number;
  /** Two calls at the token endpoint (the secret fallback) and the reads around them, with room to spare. */
  private readonly leaseMs: number;

  constructor(
    private readonly repository: ConnectionsRepository,
    private readonly transactions: Transactions,
    private readonly outages: OutageRider,
    private readonly providers: ProvidersService,
    private readonly secrets: ProviderSecretsRepository,
    private readonly client: OAuthTokenClient,
    private readonly revoker: TokenRevoker,
    private readonly cipher: SecretCipher,
    private readonly events: ConnectionEvents,
    private readonly metrics: ConnectorMetrics,
    env: ConnectorEnv,
  ) {
    this.aheadMs = env.OAUTH_REFRESH_AHEAD_SECONDS * 1000;
    this.leaseMs = 2 * env.OAUTH_HTTP_TIMEOUT_MS + 30_000;
  }

  /** Still usable without a refresh (no expiry known, or not within the refresh-ahead window). */
  isFresh(c: Pick<OAuthConnectionEntity, 'expiresAt'>): boolean {
    return !c.expiresAt || c.expiresAt.getTime() - Date.now() > this.aheadMs;
  }

  /**
   * A token newer than `seenIssuedAt` (the one the caller found wanting), refreshing only when nobody
   * has done so meanwhile. Throws REAUTH_REQUIRED when the user must authorize again.
   */
  async refresh(connectionId: string, seenIssuedAt: Date | null): Promise<IssuedToken> {
    const outcome = await this.settle(connectionId, seenIssuedAt);
    this.metrics.tokenRefreshed(
      'token' in outcome ? 'succeeded' : 'unavailable' in outcome ? 'unavailable' : 'needs_reauth',
    );
    if ('token' in outcome) return outcome.token;
    if ('unavailable' in outcome) throw DocumentSystemException.unavailable(outcome.unavailable);
    this.logger.warn({ connectionId, reason: outcome.reauth }, 'OAuth connection needs re-authentication');
    await this.events.publish({ type: 'NeedsReauth', connectionId });
    throw DocumentSystemException.reauthRequired();
  }

  /** Makes the refresh, or waits for the one another refresher makes, until the connection has an outcome. */
  private async settle(id: string, seenIssuedAt: Date | null): Promise<Outcome> {
    // A refresher that died keeps its lease until it lapses; then this one takes it.
    const deadline = Date.now() + this.leaseMs + WAIT_STEP_MS;
    for (;;) {
      const claim = await this.claim(id, seenIssuedAt);
      if ('lease' in claim) {
        const outcome = await this.refreshClaimed(claim.connection, claim.lease);
        if (outcome !== 'leaseLost') return outcome;
      } else if (!('waitForOther' in claim)) return claim;
      if (Date.now() > deadline) return { unavailable: 'the refresh under way for this connection did not end' };
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }

  private async claim(id: string, seenIssuedAt: Date | null): Promise<Claim> {
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

  /** Calls the token endpoint with no database connection held, then stores what it gave while the lease holds. */
  private async refreshClaimed(c: OAuthConnectionEntity, lease: string): Promise<Outcome | 'leaseLost'> {
    let issued: { tokens: TokenSet; secretVersion: number };
    try {
      issued = await this.callTokenEndpoint(c);
    } catch (error) {
      return this.refreshFailed(c, lease, error);
    }
    const { tokens, secretVersion } = issued;
    // The provider has rotated the refresh token: this is its only copy, so an outage of the database is waited out.
    const fresh = await this.outages.ride(() => this.store(c, lease, issued), this.leaseMs);
    if (fresh) return { token: this.issued(fresh) };
    // Lost: the user authorized again or disconnected while the call was under way. What it gave is nobody's.
    await this.revoker.revoke(
      { ...c, secretVersion },
      tokens.refreshToken
        ? { value: tokens.refreshToken, hint: 'refresh_token' }
        : { value: tokens.accessToken, hint: 'access_token' },
    );
    return 'leaseLost';
  }

  private store(
    c: OAuthConnectionEntity,
    lease: string,
    { tokens, secretVersion }: { tokens: TokenSet; secretVersion: number },
  ): Promise<OAuthConnectionEntity | null> {
    return this.transactions.run(async (transaction) => {
      const stored = await this.repository.storeRefreshed(transaction, c.id, lease, {
        accessTokenEncrypted: this.cipher.encrypt(tokens.accessToken),
        // RFC 6749 §6: a response without a refresh token keeps the old one usable.
        refreshTokenEncrypted: tokens.refreshToken ? this.cipher.encrypt(tokens.refreshToken) : c.refreshTokenEncrypted,
        expiresAt: tokens.expiresAt,
        scopes: tokens.scopes ?? c.scopes,
        tokensIssuedAt: new Date(Math.max(Date.now(), c.tokensIssuedAt.getTime() + 1)),
        secretVersion,
      });
      if (stored && secretVersion !== c.secretVersion) await this.secrets.prune(c.providerId, transaction);
      return stored;
    });
  }

  private async refreshFailed(c: OAuthConnectionEntity, lease: string, error: unknown): Promise<Outcome | 'leaseLost'> {
    if (error instanceof OAuthErrorResponse) {
      const reason = `refresh failed (${error.message}). ${GUIDANCE.refreshFailed}`;
      return (await this.repository.markNeedsReauth(c.id, lease, reason)) ? { reauth: reason } : 'leaseLost';
    }
    await this.repository.releaseRefreshLease(c.id, lease);
    if (error instanceof OAuthUnavailable) return { unavailable: error.message };
    throw error;
  }

  /** The current secret first; on invalid_client, once more with the secret the tokens were issued under. */
  private async callTokenEndpoint(c: OAuthConnectionEntity): Promise<{ tokens: TokenSet; secretVersion: number }> {
    const provider = await this.providers.inTenant(c.tenantId, c.providerId);
    // Its issuing secret is gone only when the provider moved its endpoints since: the refresh token is the old server's.
    if (
      c.secretVersion !== provider.secretVersion &&
      (await this.secrets.secret(provider.id, c.secretVersion)) === null
    )
      throw new OAuthErrorResponse(
        'invalid_grant',
        'the provider moved its endpoints since this connection was authorized',
        400,
      );
    const refreshToken = this.cipher.decrypt(c.refreshTokenEncrypted!);
    const auth = async (version: number): Promise<OAuthClientAuth> => ({
      tokenEndpoint: provider.tokenEndpoint,
      clientId: provider.clientId,
      clientSecret: (await this.secrets.secret(provider.id, version)) ?? '',
      method: provider.tokenEndpointAuthMethod,
    });
    try {
      return {
        tokens: await this.client.refresh(await auth(provider.secretVersion), refreshToken),
        secretVersion: provider.secretVersion,
      };
    } catch (error) {
      const canFallBack =
        error instanceof OAuthErrorResponse &&
        error.error === 'invalid_client' &&
        c.secretVersion !== provider.secretVersion;
      if (!canFallBack) throw error;
      return {
        tokens: await this.client.refresh(await auth(c.secretVersion), refreshToken),
        secretVersion: c.secretVersion,
      };
    }
  }

  private issued(c: OAuthConnectionEntity): IssuedToken {
    return { accessToken: this.cipher.decrypt(c.accessTokenEncrypted), issuedAt: c.tokensIssuedAt };
  }
}
