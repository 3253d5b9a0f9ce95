import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { decodeJwt } from 'jose';
import { Principal } from '@app/auth';
import type { AuthorizationStartView } from '@app/contracts/views';
import { constantTimeEqual, SecretCipher } from '@app/crypto';
import { OAuthCallbackUrl } from '../providers/oauth-callback-url';
import { OAuthProviderEntity } from '../providers/oauth-provider.entity';
import { ProviderException } from '../providers/provider.exception';
import { ProviderSecretsRepository } from '../providers/provider-secrets.repository';
import { ProvidersService } from '../providers/providers.service';
import { AuthorizationRequest, AuthorizationRequestsRepository } from './authorization-requests.repository';
import { ConnectionEvents } from './connection-events';
import { ConnectionErrorCode, ConnectionException } from './connection.exception';
import { ConnectionsRepository } from './connections.repository';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { OAuthErrorResponse, OAuthTokenClient, OAuthUnavailable, TokenSet } from './oauth-token-client';
import { randomToken, s256, sha256Hex } from './pkce';
import { storableText } from '@app/errors';

const STATE_PROBLEMS = {
  unknown: ConnectionErrorCode.StateInvalid,
  expired: ConnectionErrorCode.StateExpired,
  used: ConnectionErrorCode.StateUsed,
} as const;

/** The authorization-code flow with PKCE (RFC 6749 §4.1, RFC 7636, OpenID Connect Core §3.1). */
@Injectable()
export class AuthorizationService {
  private readonly stateTtlMs: number;

  constructor(
    private readonly requests: AuthorizationRequestsRepository,
    private readonly connections: ConnectionsRepository,
    private readonly providers: ProvidersService,
    private readonly secrets: ProviderSecretsRepository,
    private readonly client: OAuthTokenClient,
    private readonly cipher: SecretCipher,
    private readonly callbackUrl: OAuthCallbackUrl,
    private readonly events: ConnectionEvents,
    env: ConnectorEnv,
  ) {
    this.stateTtlMs = env.OAUTH_STATE_TTL_SECONDS * 1000;
  }

  /** The start, and the hash of the cookie the browser beginning it must carry back to the callback (`browserBindingHash`). */
  async start(
    principal: Principal,
    providerId: string,
    browserBindingHash: string,
  ): Promise<AuthorizationStartView & { expires: Date }> {
    const provider = await this.providers.get(principal, providerId);
    const [state, verifier, nonce] = [randomToken(), randomToken(), randomToken(16)];
    const expiresAt = new Date(Date.now() + this.stateTtlMs);
    const created = await this.requests.create(sha256Hex(state), {
      tenantId: principal.tenantId,
      userId: principal.userId,
      providerId: provider.id,
      codeVerifierEncrypted: this.cipher.encrypt(verifier),
      nonceHash: sha256Hex(nonce),
      redirectUri: this.callbackUrl.value,
      scopes: provider.supportedScopes,
      expiresAt,
      browserBindingHash,
    });
    if (!created) throw ProviderException.notFound();
    return {
      authorizationUrl: this.authorizationUrl(provider, state, s256(verifier), nonce),
      state,
      expiresAt: expiresAt.toISOString(),
      expires: expiresAt,
    };
  }

  /**
   * The callback: one use of the state, in the browser that began it (`presentedBinding`: the hash of the
   * cookie it carries), then the provider's error or the code exchange, then the connection.
   */
  async complete(
    query: Record<string, string | undefined>,
    presentedBinding: string | null,
  ): Promise<OAuthConnectionEntity> {
    const request = await this.consume(query.state);
    if (
      !request.browserBindingHash ||
      !presentedBinding ||
      !constantTimeEqual(presentedBinding, request.browserBindingHash)
    )
      throw ConnectionException.stateNotBound();
    if (query.error)
      throw ConnectionException.fromProvider(
        { error: query.error, description: query.error_description },
        request.redirectUri,
      );
    if (!query.code)
      throw ConnectionException.fromProvider(
        { error: 'invalid_request', description: 'the callback carried no code' },
        request.redirectUri,
      );
    const provider = await this.providers.inTenant(request.tenantId, request.providerId);
    const tokens = await this.exchange(provider, request, query.code);
    const subject = this.subjectOf(tokens, provider, request);
    const connection = await this.connections.saveAuthorized({
      tenantId: request.tenantId,
      userId: request.userId,
      providerId: provider.id,
      subject,
      scopes: tokens.scopes ?? request.scopes,
      accessTokenEncrypted: this.cipher.encrypt(tokens.accessToken),
      refreshTokenEncrypted: tokens.refreshToken ? this.cipher.encrypt(tokens.refreshToken) : null,
      expiresAt: tokens.expiresAt,
      secretVersion: provider.secretVersion,
    });
    // The admin deleted the provider during the code exchange: what it issued is stored nowhere.
    if (!connection) throw ProviderException.notFound();
    await this.secrets.prune(provider.id);
    await this.events.publish({ type: 'Reauthorized', connectionId: connection.id, subject });
    return connection;
  }

  private authorizationUrl(provider: OAuthProviderEntity, state: string, challenge: string, nonce: string): string {
    // Query parameters already in the registered endpoint are kept (RFC 6749 §3.1).
    const url = new URL(provider.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: this.callbackUrl.value,
      scope: provider.supportedScopes.join(' '),
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      nonce,
    };
    // OpenID Connect Core §11: offline_access is ignored unless consent is prompted for.
    if (provider.supportedScopes.includes('offline_access')) params.prompt = 'consent';
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.toString();
  }

  private async consume(state: string | undefined): Promise<AuthorizationRequest> {
    if (!state) throw ConnectionException.state(ConnectionErrorCode.StateInvalid);
    const outcome = await this.requests.consume(sha256Hex(state));
    if ('problem' in outcome) throw ConnectionException.state(STATE_PROBLEMS[outcome.problem]);
    return outcome.request;
  }

  private async exchange(
    provider: OAuthProviderEntity,
    request: AuthorizationRequest,
    code: string,
  ): Promise<TokenSet> {
    const clientSecret = await this.secrets.secret(provider.id, provider.secretVersion);
    const auth = {
      tokenEndpoint: provider.tokenEndpoint,
      clientId: provider.clientId,
      clientSecret: clientSecret ?? '',
      method: provider.tokenEndpointAuthMethod,
    };
    try {
      return await this.client.exchangeCode(
        auth,
        code,
        request.redirectUri,
        this.cipher.decrypt(request.codeVerifierEncrypted),
      );
    } catch (error) {
      if (error instanceof OAuthErrorResponse) throw ConnectionException.fromProvider(error, request.redirectUri);
      if (error instanceof OAuthUnavailable) throw ConnectionException.unavailable(error.message);
      throw error;
    }
  }

  /**
   * The document-system identity from the id_token (OpenID Connect Core §3.1.3.7). It came straight from
   * the token endpoint over the channel we opened, so its audience and nonce are checked, not its signature.
   */
  private subjectOf(tokens: TokenSet, provider: OAuthProviderEntity, request: AuthorizationRequest): string | null {
    if (!tokens.idToken) return null;
    let claims: ReturnType<typeof decodeJwt>;
    try {
      claims = decodeJwt(tokens.idToken);
    } catch {
      throw ConnectionException.invalidIdToken('not a JWT');
    }
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(provider.clientId)) throw ConnectionException.invalidIdToken('audience is not this client');
    if (typeof claims.nonce !== 'string' || sha256Hex(claims.nonce) !== request.nonceHash)
      throw ConnectionException.invalidIdToken('nonce does not match');
    return typeof claims.sub === 'string' ? storableText(claims.sub) : null;
  }
}
