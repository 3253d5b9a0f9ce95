export const TOKEN_ENDPOINT_AUTH_METHODS = ['CLIENT_SECRET_POST', 'CLIENT_SECRET_BASIC'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** An OAuth provider as an admin sees it: never the client secret, only that one is configured. */
export interface ProviderView {
  id: string;
  name: string;
  provider: 'GenericOAuth';
  authenticationType: 'StaticUserOauth';
  clientId: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** May be "". */
  revokeEndpoint: string;
  supportedScopes: string[];
  behaviour: { tokenEndpointAuthMethod: TokenEndpointAuthMethod };
  clientSecretConfigured: boolean;
  secretVersion: number;
  /** `{PUBLIC_BASE_URL}/v2/OAuth/callback`, to copy into the provider's registration. */
  redirectUri: string;
  warnings: string[];
  createdAt: string;
  updatedAt: string;
}

/** `POST /v2/OAuth/authorize`: where to send the browser; the state is single use. */
export interface AuthorizationStartView {
  authorizationUrl: string;
  state: string;
  expiresAt: string;
}

export const CONNECTION_STATUSES = ['Active', 'Expired', 'NeedsReauth'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** A user's own connection: never a token, only whether a refresh token is held. */
export interface ConnectionView {
  id: string;
  providerId: string;
  status: ConnectionStatus;
  scopes: string[];
  expiresAt: string | null;
  hasRefreshToken: boolean;
  secretVersion: number;
  createdAt: string;
  /** Only when `NeedsReauth`: why the last refresh failed. */
  problem?: string;
}
