import type { ProviderView } from '@app/contracts/views';
import type { OAuthProviderEntity } from '../oauth-provider.entity';

export const OFFLINE_ACCESS_WARNING =
  'supportedScopes lacks offline_access: the provider will issue no refresh tokens, so users will have to re-authenticate when their access tokens expire';

/** What an admin sees of a provider: never the client secret, only that one is configured. */
export function providerResponse(p: OAuthProviderEntity, redirectUri: string): ProviderView {
  return {
    id: p.id,
    name: p.name,
    provider: p.provider,
    authenticationType: p.authenticationType,
    clientId: p.clientId,
    authorizationEndpoint: p.authorizationEndpoint,
    tokenEndpoint: p.tokenEndpoint,
    revokeEndpoint: p.revokeEndpoint,
    supportedScopes: p.supportedScopes,
    behaviour: { tokenEndpointAuthMethod: p.tokenEndpointAuthMethod },
    clientSecretConfigured: true,
    secretVersion: p.secretVersion,
    redirectUri,
    warnings: p.supportedScopes.includes('offline_access') ? [] : [OFFLINE_ACCESS_WARNING],
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
