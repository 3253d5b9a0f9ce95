import { Injectable } from '@nestjs/common';
import type { Principal } from '@app/auth';
import type { Transaction } from '@app/database';
import { SecretCipher } from '@app/crypto';
import type { AccessTokenSource } from '../document-system/document-system.adapter';
import { ConnectionSummary, ConnectionTokens } from '../document-system/connection-tokens.port';
import { ConnectionException } from './connection.exception';
import { ConnectionsRepository } from './connections.repository';
import { connectionStatus, OAuthConnectionEntity } from './oauth-connection.entity';
import { IssuedToken, RefreshLeases } from './refresh-leases';
import { TokenRefresher } from './token-refresher';

/** ConnectionTokens over the stored OAuth connections: valid access tokens, refreshed ahead of expiry. */
@Injectable()
export class OAuthConnectionTokens extends ConnectionTokens {
  /** One refresh per connection at a time in this process (the row lock covers other processes). */
  private readonly inFlight = new Map<string, Promise<IssuedToken>>();

  constructor(
    private readonly repository: ConnectionsRepository,
    private readonly refresher: TokenRefresher,
    private readonly leases: RefreshLeases,
    private readonly cipher: SecretCipher,
  ) {
    super();
  }

  async ownConnection(principal: Principal, connectionId: string): Promise<ConnectionSummary> {
    const c = await this.repository.byId(connectionId);
    if (!c || c.tenantId !== principal.tenantId || c.userId !== principal.userId) throw ConnectionException.notFound();
    return summary(c);
  }

  async tenantConnection(tenantId: string, connectionId: string): Promise<ConnectionSummary> {
    const c = await this.repository.byId(connectionId);
    if (!c || c.tenantId !== tenantId) throw ConnectionException.notFound();
    return summary(c);
  }

  async holdForUse(transaction: Transaction, connectionId: string): Promise<void> {
    if (!(await this.repository.holdForUse(transaction, connectionId))) throw ConnectionException.notFound();
  }

  tokenSource(connectionId: string): AccessTokenSource {
    let seen: Date | null = null;
    const remember = (token: IssuedToken) => {
      seen = token.issuedAt;
      return token.accessToken;
    };
    return {
      current: async () => {
        const c = await this.repository.byId(connectionId);
        if (c && c.status === 'Active' && this.leases.isFresh(c))
          return remember({ accessToken: this.cipher.decrypt(c.accessTokenEncrypted), issuedAt: c.tokensIssuedAt });
        return remember(await this.refresh(connectionId, null));
      },
      // The document system rejected the token we handed out: anything newer will do.
      refreshed: async () => remember(await this.refresh(connectionId, seen ?? new Date(0))),
    };
  }

  private refresh(connectionId: string, seenIssuedAt: Date | null): Promise<IssuedToken> {
    const running = this.inFlight.get(connectionId);
    if (running) return running;
    const started = this.refresher
      .refresh(connectionId, seenIssuedAt)
      .finally(() => this.inFlight.delete(connectionId));
    this.inFlight.set(connectionId, started);
    return started;
  }
}

function summary(c: OAuthConnectionEntity): ConnectionSummary {
  return {
    id: c.id,
    tenantId: c.tenantId,
    userId: c.userId,
    providerId: c.providerId,
    subject: c.subject,
    status: connectionStatus(c),
  };
}
