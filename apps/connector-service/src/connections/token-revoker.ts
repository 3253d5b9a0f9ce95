import { Injectable } from '@nestjs/common';
import { ProviderSecretsRepository } from '../providers/provider-secrets.repository';
import { ProvidersService } from '../providers/providers.service';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { OAuthTokenClient } from './oauth-token-client';

export interface TokenToRevoke {
  value: string;
  hint: 'refresh_token' | 'access_token';
}

/** Revokes tokens a connection no longer keeps at their provider (RFC 7009), when it has a revocation endpoint. */
@Injectable()
export class TokenRevoker {
  constructor(
    private readonly providers: ProvidersService,
    private readonly secrets: ProviderSecretsRepository,
    private readonly client: OAuthTokenClient,
  ) {}

  /** `issuedTo`: the connection and the secret version the token was issued under. Best effort. */
  async revoke(
    issuedTo: Pick<OAuthConnectionEntity, 'tenantId' | 'providerId' | 'secretVersion'>,
    token: TokenToRevoke,
  ): Promise<void> {
    const provider = await this.providers.inTenant(issuedTo.tenantId, issuedTo.providerId).catch(() => null);
    if (!provider?.revokeEndpoint) return;
    // Its issuing secret is gone only when the provider moved its endpoints since: its tokens are the old server's.
    const clientSecret = await this.secrets.secret(provider.id, issuedTo.secretVersion);
    if (clientSecret === null) return;
    const client = {
      tokenEndpoint: provider.tokenEndpoint,
      revokeEndpoint: provider.revokeEndpoint,
      clientId: provider.clientId,
      clientSecret,
      method: provider.tokenEndpointAuthMethod,
    };
    await this.client.revoke(client, token.value, token.hint);
  }
}
