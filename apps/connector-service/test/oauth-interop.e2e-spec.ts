import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import request from 'supertest';
import { SecretCipher } from '@app/crypto';
import { killChild, testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { callback, startAuthorization, TEST_PUBLIC_BASE_URL, TEST_REDIRECT_URI } from './support/oauth-flow';

interface OidcHost {
  issuer: string;
  process: ChildProcess;
}

/** panva's oidc-provider (OpenID Certified) in a child process, with one confidential client. */
async function startOidcHost(settings: Record<string, unknown>): Promise<OidcHost> {
  const child = spawn(process.execPath, [join(__dirname, 'support/oidc-provider-host.mjs')], {
    env: { ...process.env, OIDC_HOST: JSON.stringify(settings), NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`oidc-provider did not start: ${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /ready (\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`oidc-provider exited with ${code}: ${output}`)));
  });
  return { issuer, process: child };
}

const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

/** The user's browser: follows the provider's redirects with its cookies until it is sent back to us. */
async function browseToRedirectUri(authorizationUrl: string): Promise<Record<string, string>> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(TEST_REDIRECT_URI)) return Object.fromEntries(new URL(url).searchParams);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider stopped at ${url} with ${res.status}: ${await res.text()}`);
    url = new URL(location, url).toString();
  }
  throw new Error('too many redirects');
}

describe.each([
  ['CLIENT_SECRET_BASIC', 'client_secret_basic'],
  ['CLIENT_SECRET_POST', 'client_secret_post'],
] as const)('OAuth against a certified OpenID provider (oidc-provider) with %s', (method, hostMethod) => {
  const clientId = `interop-${randomUUID()}`;
  // Characters that RFC 6749 §2.3.1 makes Basic auth encode: a client that skips the encoding fails here.
  const clientSecret = `s3cret:with/special+chars&${randomUUID()}`;
  let host: OidcHost;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    host = await startOidcHost({
      clientId,
      clientSecret,
      redirectUri: TEST_REDIRECT_URI,
      tokenEndpointAuthMethod: hostMethod,
      accountId: 'alice',
    });
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut?.close();
    if (host) await killChild(host.process);
  });

  const userinfo = (accessToken: string) =>
    fetch(`${host.issuer}/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
  const connectionRow = async (id: string) =>
    (await sut.db.query(`SELECT * FROM connector.oauth_connections WHERE id = $1`, [id]))[0];

  it('authorizes, refreshes with rotation, and revokes on disconnect', async () => {
    const provider = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send({
        name: 'Certified provider',
        provider: 'GenericOAuth',
        authenticationType: 'StaticUserOauth',
        clientId,
        clientSecret,
        authorizationEndpoint: `${host.issuer}/auth`,
        tokenEndpoint: `${host.issuer}/token`,
        revokeEndpoint: `${host.issuer}/token/revocation`,
        supportedScopes: ['openid', 'offline_access'],
        behaviour: { tokenEndpointAuthMethod: method },
      })
      .expect(201);

    const started = await startAuthorization(sut, user, provider.body.id);
    const query = await browseToRedirectUri(started.body.authorizationUrl);
    expect(query).toMatchObject({ code: expect.any(String), state: started.body.state, iss: host.issuer });
    const connection = (await callback(sut, query).expect(200)).body;
    expect(connection).toMatchObject({
      status: 'Active',
      hasRefreshToken: true,
      scopes: expect.arrayContaining(['openid', 'offline_access']),
    });

    const tokens = sut.app.get(ConnectionTokens).tokenSource(connection.id);
    const first = await tokens.current();
    expect(await (await userinfo(first)).json()).toEqual({ sub: 'alice' });

    const before = await connectionRow(connection.id);
    await sut.db.query(
      `UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`,
      [connection.id],
    );
    const second = await sut.app.get(ConnectionTokens).tokenSource(connection.id).current();
    expect(second).not.toBe(first);
    expect((await userinfo(second)).status).toBe(200);
    const after = await connectionRow(connection.id);
    expect(after.refreshTokenEncrypted).not.toBe(before.refreshTokenEncrypted); // rotated and stored

    const refreshToken = sut.app.get(SecretCipher).decrypt(after.refreshTokenEncrypted);
    await http().delete(`/v2/OAuth/connections/${connection.id}`).set(user.auth).expect(204);
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (hostMethod === 'client_secret_basic')
      headers.Authorization = `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
    else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    const reuse = await fetch(`${host.issuer}/token`, { method: 'POST', headers, body: form });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant'); // revoked at the provider (RFC 7009)
  });
});
