import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { SecretCipher } from '@app/crypto';
import { ProviderSecretsRepository } from '../providers/provider-secrets.repository';
import { ConnectionException } from './connection.exception';
import { ConnectionsRepository } from './connections.repository';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { TokenRevoker } from './token-revoker';

@Injectable()
export class ConnectionsService {
  constructor(
    private readonly repository: ConnectionsRepository,
    private readonly secrets: ProviderSecretsRepository,
    private readonly revoker: TokenRevoker,
    private readonly cipher: SecretCipher,
  ) {}

  listOwn(principal: Principal): Promise<OAuthConnectionEntity[]> {
    return this.repository.listOwn(principal.tenantId, principal.userId);
  }

  /** Forgets the tokens (revoking them at the provider when it has a revocation endpoint). */
  async remove(principal: Principal, id: string): Promise<void> {
    const owned = await this.repository.byId(id);
    if (!owned || owned.tenantId !== principal.tenantId || owned.userId !== principal.userId)
      throw ConnectionException.notFound();
    const deleted = await this.repository.deleteUnused(id);
    if (!deleted) {
      const users = await this.repository.countDataSourcesUsing(id);
      // Nobody uses it, yet it was not deleted: a concurrent disconnect deleted it first.
      throw users ? ConnectionException.inUse(users) : ConnectionException.notFound();
    }
    // The deleted row, not the one read above: a refresh in between may have rotated the tokens.
    await this.revoke(deleted);
    await this.secrets.prune(deleted.providerId);
  }

  private async revoke(c: OAuthConnectionEntity): Promise<void> {
    const [token, hint] = c.refreshTokenEncrypted
      ? [c.refreshTokenEncrypted, 'refresh_token' as const]
      : [c.accessTokenEncrypted, 'access_token' as const];
    await this.revoker.revoke(c, { value: this.cipher.decrypt(token), hint });
  }
}
