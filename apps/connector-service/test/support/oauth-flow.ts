import request from 'supertest';
import type { RunningSimulator, TestCaller } from '@app/testing';
import type { ConnectorTestApp } from './connector-app';

/** The redirect URI the tests' connector-service announces (PUBLIC_BASE_URL + /v2/OAuth/callback). */
export const TEST_PUBLIC_BASE_URL = 'https://connector.test';
export const TEST_REDIRECT_URI = `${TEST_PUBLIC_BASE_URL}/v2/OAuth/callback`;

export interface SimulatorClient {
  clientId: string;
  clientSecrets?: string[];
  scopes?: string[];
  tokenEndpointAuthMethods?: Array<'client_secret_post' | 'client_secret_basic'>;
  accessTokenTtlSeconds?: number;
  refreshTokensBoundToSecret?: boolean;
  redirectUris?: string[];
}

/** Registers a client at the simulator's OAuth host (the admin's step at the document system). */
export async function registerClient(sim: RunningSimulator, client: SimulatorClient): Promise<void> {
  await sim.admin.post('/oauth/clients', { redirectUris: [TEST_REDIRECT_URI], ...client });
}

/** The provider body an admin posts for a simulator client. */
export function providerBody(sim: RunningSimulator, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Document system',
    provider: 'GenericOAuth',
    authenticationType: 'StaticUserOauth',
    clientId: 'client',
    clientSecret: 'secret',
    authorizationEndpoint: `${sim.url}/oauth/authorize`,
    tokenEndpoint: `${sim.url}/oauth/token`,
    revokeEndpoint: '',
    supportedScopes: ['openid', 'offline_access'],
    behaviour: { tokenEndpointAuthMethod: 'CLIENT_SECRET_POST' },
    ...overrides,
  };
}

export interface Redirected {
  /** The query the provider sent back to the redirect URI (code and state, or error). */
  query: Record<string, string>;
  authorizationUrl: URL;
}

/** POST /v2/OAuth/authorize, then the browser's trip to the provider, which redirects (auto-approve mode). */
export async function authorizeAtProvider(
  sut: ConnectorTestApp,
  caller: TestCaller,
  providerId: string,
  tamper?: (url: URL) => void,
): Promise<Redirected> {
  const started = await startAuthorization(sut, caller, providerId);
  const authorizationUrl = new URL(started.body.authorizationUrl);
  tamper?.(authorizationUrl);
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`provider answered ${res.status}: ${await res.text()}`);
  const back = new URL(location);
  if (`${back.origin}${back.pathname}` !== TEST_REDIRECT_URI) throw new Error(`redirected to ${location}`);
  return { query: Object.fromEntries(back.searchParams), authorizationUrl };
}

/**
 * The browser's cookie jar for the callback path: each authorization's cookie by its state, as
 * `POST /v2/OAuth/authorize` set it (the callback needs it: CONTRACT.md, "Safe by default").
 */
const callbackCookies = new Map<string, string>();

/** `POST /v2/OAuth/authorize` from the user's browser (200 expected): its cookie is kept for the callback of that state. */
export async function startAuthorization(
  sut: ConnectorTestApp,
  caller: TestCaller,
  providerId: string,
): Promise<request.Response> {
  const res = await request(sut.app.getHttpServer())
    .post('/v2/OAuth/authorize')
    .set(caller.auth)
    .send({ providerId })
    .expect(200);
  const cookie = [res.headers['set-cookie'] ?? []].flat()[0];
  if (cookie) callbackCookies.set(res.body.state, cookie.split(';')[0]);
  return res;
}

/**
 * The provider's redirect arriving at our callback, as the popup's browser would send it (JSON wanted),
 * with the cookie its authorization set in that browser.
 */
export function callback(sut: ConnectorTestApp, query: Record<string, string>) {
  const call = request(sut.app.getHttpServer())
    .get('/v2/OAuth/callback')
    .query(query)
    .set('Accept', 'application/json');
  const cookie = query.state ? callbackCookies.get(query.state) : undefined;
  return cookie ? call.set('Cookie', cookie) : call;
}

/** The whole flow as one user: returns the new connection's body. */
export async function connect(sut: ConnectorTestApp, caller: TestCaller, providerId: string) {
  const { query } = await authorizeAtProvider(sut, caller, providerId);
  return (await callback(sut, query).expect(200)).body as {
    id: string;
    status: string;
    hasRefreshToken: boolean;
    secretVersion: number;
    scopes: string[];
  };
}
