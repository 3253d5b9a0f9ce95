import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';

export type ClientAuthMethod = 'client_secret_post' | 'client_secret_basic';

export interface OAuthClient {
  clientId: string;
  /** SHA-256 of every valid secret (rotation: old and new side by side); the secrets themselves are not kept. */
  clientSecretHashes: string[];
  redirectUris: string[];
  scopes: string[];
  tokenEndpointAuthMethods: ClientAuthMethod[];
  accessTokenTtlSeconds: number;
  /** Like providers that bind a refresh token to the client secret it was issued with (secret rotation). */
  refreshTokensBoundToSecret?: boolean;
}

interface AuthorizationCode {
  clientId: string;
  redirectUri: string;
  scope: string[];
  subject: string;
  codeChallenge: string | null;
  /** OpenID Connect: echoed in the id_token of the code exchange. */
  nonce: string | null;
  expiresAt: number;
}

export interface RefreshGrant {
  clientId: string;
  scope: string[];
  subject: string;
  /** SHA-256 of the client secret the grant was issued with. */
  secretHash: string;
}

export const DEMO_CLIENT: OAuthClient = {
  clientId: 'demo-client',
  clientSecretHashes: [sha256('demo-secret')],
  redirectUris: ['http://localhost:3001/v2/OAuth/callback'],
  scopes: ['openid', 'offline_access'],
  tokenEndpointAuthMethods: ['client_secret_post', 'client_secret_basic'],
  accessTokenTtlSeconds: 3600,
};

/**
 * Registered clients, issued codes and refresh tokens of the simulated OAuth host. Refresh tokens are
 * kept by their SHA-256, as a provider would, so the saved state holds no usable token.
 */
@Injectable()
export class OAuthState {
  clients = new Map<string, OAuthClient>();
  codes = new Map<string, AuthorizationCode>();
  /** By SHA-256 of the token. */
  refreshTokens = new Map<string, RefreshGrant>();
  /** Tests and demos: approve at once as this user, without the login page. */
  autoApproveUser: string | null = null;
  tokenCalls: Record<string, number> = {};

  constructor() {
    this.reset();
  }

  reset(): void {
    this.clients = new Map([
      [DEMO_CLIENT.clientId, { ...DEMO_CLIENT, clientSecretHashes: [...DEMO_CLIENT.clientSecretHashes] }],
    ]);
    this.codes.clear();
    this.refreshTokens.clear();
    this.autoApproveUser = null;
    this.tokenCalls = {};
  }

  issueCode(grant: Omit<AuthorizationCode, 'expiresAt'>): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, { ...grant, expiresAt: Date.now() + 60_000 });
    return code;
  }

  /** A code is good once. */
  takeCode(code: string): AuthorizationCode | null {
    const grant = this.codes.get(code);
    this.codes.delete(code);
    return grant && grant.expiresAt > Date.now() ? grant : null;
  }

  issueRefreshToken(grant: RefreshGrant): string {
    const token = `sim_rt_${randomBytes(24).toString('base64url')}`;
    this.refreshTokens.set(sha256(token), grant);
    return token;
  }

  /** Tests: every refresh token stops working (as when the user revokes the app at the provider). */
  revokeRefreshTokens(): number {
    const count = this.refreshTokens.size;
    this.refreshTokens.clear();
    return count;
  }

  /** The grant of a refresh token, leaving it valid. */
  peekRefreshToken(token: string): RefreshGrant | null {
    return this.refreshTokens.get(sha256(token)) ?? null;
  }

  /** Refresh tokens rotate: using one retires it. */
  takeRefreshToken(token: string): RefreshGrant | null {
    const grant = this.peekRefreshToken(token);
    this.refreshTokens.delete(sha256(token));
    return grant;
  }
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
