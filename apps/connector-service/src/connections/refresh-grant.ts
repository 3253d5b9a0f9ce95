import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/crypto';
import { ProviderSecretsRepository } from '../providers/provider-secrets.repository';
import { ProvidersService } from '../providers/providers.service';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { OAuthClientAuth, OAuthErrorResponse, OAuthTokenClient, TokenSet } from './oauth-token-client';

/** What the token endpoint gave, and the version of the client secret it took. */
export interface GrantedTokens {
  tokens: TokenSet;
  secretVersion: number;
}

/** The refresh-token grant at the connection's provider, with the client secret that provider takes. */
@Injectable()
export class RefreshGrant {
  constructor(
    private readonly providers: ProvidersService,
    private readonly secrets: ProviderSecretsRepository,
    private readonly client: OAuthTokenClient,
    private readonly cipher: SecretCipher,
  ) {}

  /** The current secret first; on invalid_client, once more with the secret the tokens were issued under. */
  async request(c: OAuthConnectionEntity): Promise<GrantedTokens> {
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
}
