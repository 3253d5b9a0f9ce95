import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { HttpPeer, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import {
  authorizeAtProvider,
  callback,
  connect,
  providerBody,
  registerClient,
  startAuthorization,
  TEST_PUBLIC_BASE_URL,
} from '../support/oauth-flow';

type TokenAnswer = Record<string, unknown>;

const json = (res: ServerResponse, body: unknown) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * A token endpoint that passes calls on to the simulator's and answers what `rewrite` makes of its answer: the
 * provider is broken or hostile, the document system behind it is real.
 */
describe('A token endpoint that answers odd tokens', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let tokenEndpoint: HttpPeer;
  let admin: TestCaller;
  let user: TestCaller;
  let rewrite: (answer: TokenAnswer) => TokenAnswer = (answer) => answer;
  const http = () => request(sut.app.getHttpServer());
  const logLines: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    tokenEndpoint = await new HttpPeer(async (req, res) => {
      const answer = await fetch(`${sim.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': String(req.headers['content-type']),
          authorization: req.headers.authorization ?? '',
        },
        body: req.body,
      });
      const body = (await answer.json()) as TokenAnswer;
      res
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(answer.ok ? rewrite(body) : body));
    }).start();
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, LOG_LEVEL: 'debug' }, logLines });
    admin = await testCaller({ roles: ['admin'] });
  });
  // A user of their own per test: what one test's callback stored is not another's to find.
  beforeEach(async () => {
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterEach(() => {
    rewrite = (answer) => answer;
  });
  afterAll(async () => {
    await tokenEndpoint?.stop();
    await sut?.close();
    await sim?.close();
  });

  async function providerId(
    accessTokenTtlSeconds = 3600,
    tokenUrl = `${tokenEndpoint.url}/oauth/token`,
  ): Promise<string> {
    const clientId = `client-${randomUUID()}`;
    const clientSecret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [clientSecret], accessTokenTtlSeconds });
    const res = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret, tokenEndpoint: tokenUrl }))
      .expect(201);
    return res.body.id;
  }

  async function dataSourceOf(connectionId: string): Promise<string> {
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(user.auth)
      .send({ name: 'Docs', credentialId: credential.body.id, connectionId })
      .expect(201);
    return ds.body.id;
  }

  /** The access token has expired by the clock. */
  const expireByTime = (connectionId: string) =>
    sut.db.query(`UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`, [
      connectionId,
    ]);
  /** The provider's token endpoint moved to `url`, as only the database may move it (no secret asked for). */
  const tokenEndpointOf = (providerId: string, url: string) =>
    sut.db.query(`UPDATE connector.oauth_providers SET "tokenEndpoint" = $2 WHERE id = $1`, [providerId, url]);
  const refreshes = async (): Promise<number> =>
    (await sim.admin.get('/oauth/stats')).data.tokenCalls.refresh_token ?? 0;

  for (const [what, accessToken] of [
    ['CR LF and a header line', 'token\r\nX-Injected: yes'],
    ['a character no header may hold', 'token\u2028more'],
    ['nothing', ''],
  ] as const)
    it(`refuses an access_token holding ${what}: the callback says the provider answered no usable token and stores nothing`, async () => {
      const id = await providerId();
      rewrite = (answer) => ({ ...answer, access_token: accessToken });
      const { query } = await authorizeAtProvider(sut, user, id);
      const res = await callback(sut, query);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 502, code: 'OAUTH_PROVIDER_UNAVAILABLE' });
      expect(res.body.message).toContain('access_token');
      await http().get('/v2/OAuth/connections').set(user.auth).expect(200, []);
    });

  for (const [what, answer] of [
    ['1 MiB', (res: ServerResponse) => json(res, { access_token: 'a'.repeat(1 << 20), token_type: 'Bearer' })],
    [
      'a gzip bomb (50 MiB inflated)',
      (res: ServerResponse) =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(`{"access_token":"${'a'.repeat(50 << 20)}"}`)),
    ],
    ['not JSON', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Sign in</p>')],
    ['a number for a token', (res: ServerResponse) => json(res, { access_token: 12345 })],
    ['an object for a token', (res: ServerResponse) => json(res, { access_token: { value: 'x' } })],
  ] as const)
    it(`answers a code exchange answered ${what} with 502 OAUTH_PROVIDER_UNAVAILABLE at once, storing nothing`, async () => {
      const peer = await new HttpPeer((_req, res) => void answer(res)).start();
      try {
        const id = await providerId(3600, `${peer.url}/oauth/token`);
        const { body } = await startAuthorization(sut, user, id);
        const started = Date.now();
        const res = await callback(sut, { code: 'the-code', state: body.state });
        expect(res.body).toMatchObject({ statusCode: 502, code: 'OAUTH_PROVIDER_UNAVAILABLE' });
        expect(Date.now() - started).toBeLessThan(5_000);
        await http().get('/v2/OAuth/connections').set(user.auth).expect(200, []);
      } finally {
        await peer.stop();
      }
    });

  it("shows the provider's error words on the popup page as text, never as markup", async () => {
    const { body } = await startAuthorization(sut, user, await providerId());
    const page = await callback(sut, {
      state: body.state,
      code: 'also-a-code',
      error: 'access_denied<script>alert(1)</script>',
      error_description: '<img src=x onerror=alert(1)>',
    }).set('Accept', 'text/html');
    expect(page.status).toBe(400);
    expect(page.text).not.toMatch(/<img|<script>alert|<\/script>alert/);
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text.match(/<script/g)).toHaveLength(1); // ours, under the CSP's nonce
    await http().get('/v2/OAuth/connections').set(user.auth).expect(200, []); // the error wins over the code
  });

  it('never shows or logs the secrets a provider quotes back in its error words, at the callback or a refresh', async () => {
    const quoting = await new HttpPeer((req, res) => {
      const sent = new URLSearchParams(req.body);
      const said = [...sent.entries()].map(([key, value]) => `${key}=${value}`).join(' ');
      const answer = { error: `invalid_client ${sent.get('client_secret')}`, error_description: `got ${said}` };
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }).start();
    const quotedTo = (providerId: string) => tokenEndpointOf(providerId, `${quoting.url}/oauth/token`);
    try {
      const refreshed = await providerId();
      const connection = await connect(sut, user, refreshed);
      const dataSourceId = await dataSourceOf(connection.id);
      await quotedTo(refreshed);
      await expireByTime(connection.id);
      await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(409);
      const listed = (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body;

      const exchanged = await providerId();
      await quotedTo(exchanged);
      const { body } = await startAuthorization(sut, user, exchanged);
      const page = await callback(sut, { code: 'code-to-quote', state: body.state }).set('Accept', 'text/html');

      expect(page.status).toBe(400);
      expect(page.text).toContain('[redacted]');
      expect(listed[0]).toMatchObject({ status: 'NeedsReauth', problem: expect.stringContaining('[redacted]') });
      const secrets = quoting.received.flatMap((r) =>
        [...new URLSearchParams(r.body)].filter(([key]) => key !== 'grant_type' && key !== 'client_id'),
      );
      expect(secrets.map(([key]) => key).sort()).toEqual(
        ['client_secret', 'client_secret', 'code', 'code_verifier', 'redirect_uri', 'refresh_token'].sort(),
      );
      const shown = [page.text, JSON.stringify(listed), ...logLines].join('\n');
      for (const [key, value] of secrets) if (key !== 'redirect_uri') expect(shown).not.toContain(value);
    } finally {
      await quoting.stop();
    }
  });

  it('refuses a token_type other than Bearer (RFC 6749 §7.1), and takes "bearer" in any case', async () => {
    const id = await providerId();
    rewrite = (answer) => ({ ...answer, token_type: 'DPoP' });
    const refused = await callback(sut, (await authorizeAtProvider(sut, user, id)).query);
    expect(refused.body).toMatchObject({ statusCode: 502, code: 'OAUTH_PROVIDER_UNAVAILABLE' });
    expect(refused.body.message).toContain('token_type "DPoP", not Bearer');
    await http().get('/v2/OAuth/connections').set(user.auth).expect(200, []);

    rewrite = (answer) => ({ ...answer, token_type: 'bearer' });
    await expect(connect(sut, user, id)).resolves.toMatchObject({ status: 'Active' });
  });

  it('a provider whose access tokens live 30 s (less than the refresh-ahead window) is not asked for a refresh each time the picker opens', async () => {
    const connection = await connect(sut, user, await providerId(30));
    const dataSourceId = await dataSourceOf(connection.id);
    const before = await refreshes();
    for (let i = 0; i < 4; i++) await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(200);
    expect((await refreshes()) - before).toBe(0);

    // Past half its life: refreshed once, and the new token is kept for half of its own.
    await sut.db.query(
      `UPDATE connector.oauth_connections SET "tokensIssuedAt" = now() - interval '20 seconds', "expiresAt" = now() + interval '10 seconds' WHERE id = $1`,
      [connection.id],
    );
    for (let i = 0; i < 4; i++) await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(200);
    expect((await refreshes()) - before).toBe(1);
  });

  it('a refresh answered with an unusable access_token says so, and leaves the connection Active', async () => {
    const connection = await connect(sut, user, await providerId());
    const dataSourceId = await dataSourceOf(connection.id);
    await expireByTime(connection.id);
    rewrite = (answer) => ({ ...answer, access_token: 'token\r\nX-Injected: yes' });
    const res = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 502, code: 'DOCUMENT_SYSTEM_UNAVAILABLE' });
    expect(res.body.message).toContain('access_token');
    const listed = (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body;
    expect(listed.find((c: { id: string }) => c.id === connection.id)).toMatchObject({ status: 'Active' });
  });
});
