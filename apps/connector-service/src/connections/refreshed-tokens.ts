import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/crypto';
import { OutageRider, Transactions } from '@app/database';
import { ProviderSecretsRepository } from '../providers/provider-secrets.repository';
import { ConnectionsRepository } from './connections.repository';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { GrantedTokens } from './refresh-grant';

/** A refresh's new tokens, stored (encrypted) on the connection only while the refresher's lease holds. */
@Injectable()
export class RefreshedTokens {
  constructor(
    private readonly repository: ConnectionsRepository,
    private readonly transactions: Transactions,
    private readonly outages: OutageRider,
    private readonly cipher: SecretCipher,
    private readonly secrets: ProviderSecretsRepository,
  ) {}

  /**
   * The connection as stored with the new tokens, or null when the lease was lost. The provider has rotated the
   * refresh token: this is its only copy, so an outage of the database is waited out, for up to `withinMs`.
   */
  keep(
    c: OAuthConnectionEntity,
    lease: string,
    { tokens, secretVersion }: GrantedTokens,
    withinMs: number,
  ): Promise<OAuthConnectionEntity | null> {
    const store = () =>
      this.transactions.run(async (transaction) => {
        const stored = await this.repository.storeRefreshed(transaction, c.id, lease, {
          accessTokenEncrypted: this.cipher.encrypt(tokens.accessToken),
          // RFC 6749 §6: a response without a refresh token keeps the old one usable.
          refreshTokenEncrypted: tokens.refreshToken
            ? this.cipher.encrypt(tokens.refreshToken)
            : c.refreshTokenEncrypted,
          expiresAt: tokens.expiresAt,
          scopes: tokens.scopes ?? c.scopes,
          tokensIssuedAt: new Date(Math.max(Date.now(), c.tokensIssuedAt.getTime() + 1)),
          secretVersion,
        });
        if (stored && secretVersion !== c.secretVersion) await this.secrets.prune(c.providerId, transaction);
        return stored;
      });
    return this.outages.ride(store, withinMs);
  }
}
