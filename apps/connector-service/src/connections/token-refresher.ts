import { Injectable, Logger } from '@nestjs/common';
import { DocumentSystemException } from '../document-system/document-system.exception';
import { ConnectorMetrics } from '../metrics/connector-metrics';
import { ConnectionEvents } from './connection-events';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { GrantedTokens, RefreshGrant } from './refresh-grant';
import { IssuedToken, RefreshLeases, RefreshOutcome } from './refresh-leases';
import { RefreshedTokens } from './refreshed-tokens';
import { TokenRevoker } from './token-revoker';

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

  constructor(
    private readonly leases: RefreshLeases,
    private readonly grant: RefreshGrant,
    private readonly refreshed: RefreshedTokens,
    private readonly revoker: TokenRevoker,
    private readonly events: ConnectionEvents,
    private readonly metrics: ConnectorMetrics,
  ) {}

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
  private async settle(id: string, seenIssuedAt: Date | null): Promise<RefreshOutcome> {
    // A refresher that died keeps its lease until it lapses; then this one takes it.
    const deadline = Date.now() + this.leases.leaseMs + WAIT_STEP_MS;
    for (;;) {
      const claim = await this.leases.claim(id, seenIssuedAt);
      if ('lease' in claim) {
        const outcome = await this.refreshClaimed(claim.connection, claim.lease);
        if (outcome !== 'leaseLost') return outcome;
      } else if (!('waitForOther' in claim)) return claim;
      if (Date.now() > deadline) return { unavailable: 'the refresh under way for this connection did not end' };
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }

  /** Calls the token endpoint with no database connection held, then stores what it gave while the lease holds. */
  private async refreshClaimed(c: OAuthConnectionEntity, lease: string): Promise<RefreshOutcome | 'leaseLost'> {
    let granted: GrantedTokens;
    try {
      granted = await this.grant.request(c);
    } catch (error) {
      return this.leases.failed(c, lease, error);
    }
    const fresh = await this.refreshed.keep(c, lease, granted, this.leases.leaseMs);
    if (fresh) return { token: this.leases.issued(fresh) };
    // Lost: the user authorized again or disconnected while the call was under way. What it gave is nobody's.
    const { tokens, secretVersion } = granted;
    await this.revoker.revoke(
      { ...c, secretVersion },
      tokens.refreshToken
        ? { value: tokens.refreshToken, hint: 'refresh_token' }
        : { value: tokens.accessToken, hint: 'access_token' },
    );
    return 'leaseLost';
  }
}
