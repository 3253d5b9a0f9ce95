import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import axios, { AxiosInstance, isAxiosError } from 'axios';
import { GuardedAgents, guardedAgents, isOutboundRefusal, outboundAxiosConfig, OutboundUrlPolicy } from '@app/outbound';
import type { TokenEndpointAuthMethod } from '../providers/oauth-provider.entity';
import { providerWords, TokenSet, tokenSet, unusableToken } from './token-answer';

export type { TokenSet } from './token-answer';

/** How we authenticate to one provider's token endpoint. */
export interface OAuthClientAuth {
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  method: TokenEndpointAuthMethod;
}

/** The provider answered with an OAuth error (RFC 6749 §5.2). */
export class OAuthErrorResponse extends Error {
  constructor(
    readonly error: string,
    readonly description: string | undefined,
    readonly status: number,
  ) {
    super(description ? `${error}: ${description}` : error);
  }
}

/** The provider could not be reached, timed out, or answered something that is not OAuth. */
export class OAuthUnavailable extends Error {}

/** A token response is a small JSON object (a few kilobytes); anything larger is not one. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** Calls of a provider's token and revocation endpoints, with the provider's client authentication. */
@Injectable()
export class OAuthTokenClient implements OnModuleDestroy {
  private readonly agents: GuardedAgents;
  private readonly http: AxiosInstance;
  private readonly timeoutMs: number;

  constructor(env: ConnectorEnv, policy: OutboundUrlPolicy) {
    this.timeoutMs = env.OAUTH_HTTP_TIMEOUT_MS;
    this.agents = guardedAgents(policy);
    this.http = axios.create({
      ...outboundAxiosConfig(this.agents),
      timeout: this.timeoutMs,
      maxContentLength: MAX_TOKEN_RESPONSE_BYTES,
      validateStatus: () => true,
    });
  }

  onModuleDestroy(): void {
    this.agents.destroy();
  }

  exchangeCode(client: OAuthClientAuth, code: string, redirectUri: string, codeVerifier: string): Promise<TokenSet> {
    return this.token(client, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    });
  }

  refresh(client: OAuthClientAuth, refreshToken: string): Promise<TokenSet> {
    return this.token(client, { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /** RFC 7009, best effort: a failure is not the user's problem (the tokens are forgotten either way). */
  async revoke(
    client: OAuthClientAuth & { revokeEndpoint: string },
    token: string,
    hint: 'refresh_token' | 'access_token',
  ): Promise<void> {
    const { body, headers } = authenticated(client, { token, token_type_hint: hint });
    await this.http
      .post(client.revokeEndpoint, body, { headers, signal: AbortSignal.timeout(this.timeoutMs) })
      .catch(() => undefined);
  }

  private async token(client: OAuthClientAuth, params: Record<string, string>): Promise<TokenSet> {
    const { body, headers } = authenticated(client, params);
    let res;
    try {
      // The axios timeout restarts with every byte; the signal bounds the whole call.
      res = await this.http.post(client.tokenEndpoint, body, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new OAuthUnavailable(this.reasonOf(error));
    }
    const data = typeof res.data === 'object' && res.data !== null ? (res.data as Record<string, unknown>) : {};
    const words = providerWords(client.clientSecret, params, headers.Authorization);
    if (res.status >= 200 && res.status < 300 && 'access_token' in data) {
      const unusable = unusableToken(data, words);
      if (unusable) throw new OAuthUnavailable(`token endpoint answered ${unusable}`);
      return tokenSet(data);
    }
    if (typeof data.error !== 'string') {
      // A 401 without an OAuth body is still the client failing to authenticate (RFC 6749 §5.2).
      if (res.status === 401) throw new OAuthErrorResponse('invalid_client', undefined, 401);
      throw new OAuthUnavailable(`token endpoint answered HTTP ${res.status} without a token`);
    }
    const description = typeof data.error_description === 'string' ? data.error_description : '';
    const refused = new OAuthErrorResponse(words(data.error), description ? words(description) : undefined, res.status);
    if (isOutage(res.status, data.error))
      throw new OAuthUnavailable(`token endpoint answered HTTP ${res.status} (${refused.message})`);
    throw refused;
  }

  /** Names the rule or the deadline, never a socket code or a resolved address (no port scanning through us). */
  private reasonOf(error: unknown): string {
    if (isOutboundRefusal(error)) return `token endpoint ${(error as Error).message}`;
    if (isAxiosError(error) && error.code === 'ERR_BAD_RESPONSE')
      return 'token endpoint answered more than a token response may hold';
    if (isAxiosError(error) && ['ECONNABORTED', 'ETIMEDOUT', 'ERR_CANCELED'].includes(error.code ?? ''))
      return `token endpoint gave no answer within ${this.timeoutMs / 1000} s`;
    return 'token endpoint could not be reached';
  }
}

/** Codes a provider that is down or overloaded answers with (RFC 6749 §4.1.2.1): nothing said about the grant. */
const OUTAGE_ERRORS = ['temporarily_unavailable', 'server_error'];

/** A 5xx or 429 is the provider's trouble whatever its body says, so the grant it was asked about still stands. */
function isOutage(status: number, error: string): boolean {
  return status >= 500 || status === 429 || OUTAGE_ERRORS.includes(error);
}

/** CLIENT_SECRET_BASIC: form-urlencoded id and secret in Basic auth (RFC 6749 §2.3.1); POST: in the body. */
function authenticated(client: OAuthClientAuth, params: Record<string, string>) {
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
    Accept: 'application/json',
  };
  const form = new URLSearchParams(params);
  if (client.method === 'CLIENT_SECRET_BASIC') {
    const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
    headers.Authorization = `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}`;
  } else {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  }
  return { body: form.toString(), headers };
}
