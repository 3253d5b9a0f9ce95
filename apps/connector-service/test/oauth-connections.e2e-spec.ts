import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { HttpPeer, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { allStoredText, ConnectorTestApp, startConnectorApp } from './support/connector-app';
import {
  authorizeAtProvider,
  callback,
  connect,
  providerBody,
  registerClient,
  SimulatorClient,
  startAuthorization,
  TEST_PUBLIC_BASE_URL,
  TEST_REDIRECT_URI,
} from './support/oauth-flow';

describe('Per-user OAuth connections against the simulator', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  const http = () => request(sut.app.getHttpServer());
  const projectId = randomUUID();
  const logLines: string[] = [];
  /** Every secret the run handles (client secrets, states, codes), to look for in the logs at the end. */
  const secretsSeen: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    sut = await startConnectorApp({
      env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, OAUTH_REFRESH_AHEAD_SECONDS: 5, LOG_LEVEL: 'debug' },
      logLines,
    });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut.close();
    await sim.close();
  });

  /** A simulator client and the provider registered for it; `client` tweaks the simulator side. */
  async function provider(client: Partial<SimulatorClient> = {}, body: Record<string, unknown> = {}) {
    const clientId = `client-${randomUUID()}`;
    const secret = `secret-${randomUUID()}`;
    secretsSeen.push(secret);
    await registerClient(sim, { clientId, clientSecrets: [secret], ...client });
    const res = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret: secret, ...body }))
      .expect(201);
    return { id: res.body.id as string, clientId, secret };
  }

  const tokenCalls = async (): Promise<Record<string, number>> => (await sim.admin.get('/oauth/stats')).data.tokenCalls;
  const connections = async (caller = user) =>
    (await http().get('/v2/OAuth/connections').set(caller.auth).expect(200)).body;
  const connectionRow = async (id: string) =>
    (await sut.db.query(`SELECT * FROM connector.oauth_connections WHERE id = $1`, [id]))[0];

  async function dataSourceWithSelection(connectionId: string, caller = user) {
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Docs', credentialId: credential.body.id, connectionId })
      .expect(201);
    await http()
      .put(`/v1/data-sources/${ds.body.id}/selection`)
      .set(caller.auth)
      .send({ include: [await sim.folderId('/Architecture')], exclude: [] })
      .expect(200);
    return ds.body.id as string;
  }

  const status = async (dataSourceId: string) =>
    (await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(200)).body.ingestionStatus;

  it('builds the authorization URL: code flow, exact redirect URI, scopes, single-use state, PKCE S256, prompt=consent', async () => {
    const p = await provider();
    const started = await http().post('/v2/OAuth/authorize').set(user.auth).send({ providerId: p.id }).expect(200);
    const url = new URL(started.body.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${sim.url}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: p.clientId,
      redirect_uri: TEST_REDIRECT_URI,
      scope: 'openid offline_access',
      state: started.body.state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      prompt: 'consent',
    });
    const ttl = Date.parse(started.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    const withoutOffline = await provider({}, { supportedScopes: ['openid'] });
    const plain = new URL(
      (await http().post('/v2/OAuth/authorize').set(user.auth).send({ providerId: withoutOffline.id }).expect(200)).body
        .authorizationUrl,
    );
    expect(plain.searchParams.has('prompt')).toBe(false);
    expect(await allStoredText(sut.db)).not.toContain(started.body.state);
  });

  it.each([
    ['CLIENT_SECRET_POST', 'client_secret_post'],
    ['CLIENT_SECRET_BASIC', 'client_secret_basic'],
  ] as const)('completes the code flow with %s, ending Active with a refresh token', async (method, simMethod) => {
    const p = await provider(
      { tokenEndpointAuthMethods: [simMethod] },
      { behaviour: { tokenEndpointAuthMethod: method } },
    );
    const connection = await connect(sut, user, p.id);
    expect(connection).toEqual({
      id: expect.any(String),
      providerId: p.id,
      status: 'Active',
      scopes: ['openid', 'offline_access'],
      expiresAt: expect.any(String),
      hasRefreshToken: true,
      secretVersion: 1,
      createdAt: expect.any(String),
    });
    expect((await connections()).map((c: { id: string }) => c.id)).toContain(connection.id);
    const stored = await allStoredText(sut.db);
    expect(stored).not.toContain(p.secret);
    expect(stored).not.toMatch(/sim_rt_/);
  });

  it("answers the popup with a page that posts the result to its opener and closes, and tells the console over a BroadcastChannel bound to the flow's state, under a strict CSP", async () => {
    const p = await provider();
    const { query } = await authorizeAtProvider(sut, user, p.id);
    secretsSeen.push(query.code, query.state);
    expect(query.iss).toBeDefined(); // RFC 9207's extra parameter is accepted
    const res = await callback(sut, query).set('Accept', 'text/html').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'nonce-/);
    expect(res.text).toContain(`new BroadcastChannel("oauth-connection-outcome").postMessage(`);
    expect(res.text).toContain(`"state":${JSON.stringify(query.state)},"ok":true,"connectionId":`);
    expect(res.text).toMatch(/"ok":true,"connectionId":"[0-9a-f-]{36}"/);
    expect(res.text).toContain(`window.opener.postMessage(`);
    expect(res.text).toContain(`"https://connector.test"`);
  });

  it('refuses a reused, an expired and an unknown state with 400 and what to do', async () => {
    const p = await provider();
    const { query } = await authorizeAtProvider(sut, user, p.id);
    await callback(sut, query).expect(200);
    const reused = await callback(sut, query).expect(400);
    expect(reused.body).toMatchObject({
      statusCode: 400,
      code: 'OAUTH_STATE_USED',
      details: [{ resolution: expect.stringContaining('Start the connection again') }],
    });

    const late = await authorizeAtProvider(sut, user, p.id);
    await sut.db.query(
      `UPDATE connector.oauth_authorization_requests SET "expiresAt" = now() - interval '1 second' WHERE "consumedAt" IS NULL`,
    );
    expect((await callback(sut, late.query).expect(400)).body.code).toBe('OAUTH_STATE_EXPIRED');
    expect((await callback(sut, { code: 'x', state: 'made-up' }).expect(400)).body.code).toBe('OAUTH_STATE_INVALID');
    expect((await callback(sut, { code: 'x' }).expect(400)).body.code).toBe('OAUTH_STATE_INVALID');
  });

  it('sends the PKCE verifier: a code issued for another challenge is refused by the provider, and we say so', async () => {
    const p = await provider();
    const { query } = await authorizeAtProvider(sut, user, p.id, (url) =>
      url.searchParams.set('code_challenge', 'A'.repeat(43)),
    );
    const res = await callback(sut, query).expect(400);
    expect(res.body).toMatchObject({ code: 'OAUTH_INVALID_GRANT', message: expect.stringContaining('PKCE') });
  });

  it('maps provider errors to SPEC.md’s guidance: invalid_scope, invalid client, redirect_uri mismatch, access denied', async () => {
    const narrow = await provider({ scopes: ['openid'] });
    const scope = await callback(sut, (await authorizeAtProvider(sut, user, narrow.id)).query).expect(400);
    expect(scope.body).toMatchObject({
      code: 'OAUTH_INVALID_SCOPE',
      details: [{ resolution: expect.stringContaining('drop offline_access') }],
    });

    const wrongSecret = await provider();
    await http()
      .put(`/v2/OAuth/providers/${wrongSecret.id}`)
      .set(admin.auth)
      .send(providerBody(sim, { clientId: wrongSecret.clientId, clientSecret: 'not-the-secret' }))
      .expect(200);
    const client = await callback(sut, (await authorizeAtProvider(sut, user, wrongSecret.id)).query).expect(400);
    expect(client.body).toMatchObject({
      code: 'OAUTH_INVALID_CLIENT',
      message: expect.stringContaining('invalid client'),
    });
    expect(client.body.details[0].resolution).toContain(TEST_REDIRECT_URI);
    expect(client.body.details[0].resolution).toContain('CLIENT_SECRET_BASIC');

    const started = await startAuthorization(sut, user, wrongSecret.id);
    const state = started.body.state;
    const mismatch = await callback(sut, {
      state,
      error: 'invalid_request',
      error_description: 'redirect_uri does not match',
    }).expect(400);
    expect(mismatch.body).toMatchObject({
      code: 'OAUTH_REDIRECT_URI_MISMATCH',
      details: [{ resolution: expect.stringContaining(`Register exactly ${TEST_REDIRECT_URI}`) }],
    });

    const denied = await startAuthorization(sut, user, wrongSecret.id);
    expect((await callback(sut, { state: denied.body.state, error: 'access_denied' }).expect(400)).body.code).toBe(
      'OAUTH_ACCESS_DENIED',
    );
    const page = await http().get('/v2/OAuth/callback').query({ state: 'gone', error: 'access_denied' }).expect(400);
    expect(page.text).toContain('What to do:');
  });

  it('refreshes ahead of expiry and after the document system rejects a token, storing the rotated refresh token', async () => {
    const p = await provider({ accessTokenTtlSeconds: 6 });
    const connection = await connect(sut, user, p.id);
    const dataSourceId = await dataSourceWithSelection(connection.id);
    const before = await connectionRow(connection.id);
    const refreshesBefore = (await tokenCalls()).refresh_token ?? 0;

    // Inside the 5 s refresh-ahead window, and past half the token's life (shorter-lived tokens wait that long).
    await new Promise((resolve) => setTimeout(resolve, 3200));
    await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(200);
    const after = await connectionRow(connection.id);
    expect((await tokenCalls()).refresh_token).toBe(refreshesBefore + 1);
    expect(after.refreshTokenEncrypted).not.toBe(before.refreshTokenEncrypted);
    expect(after.accessTokenEncrypted).not.toBe(before.accessTokenEncrypted);

    await sim.admin.post('/expire', { accessTokens: true, sessions: true });
    await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(200);
    expect((await tokenCalls()).refresh_token).toBe(refreshesBefore + 2); // the rotated token worked
    expect((await connections()).find((c: { id: string }) => c.id === connection.id)).toMatchObject({
      status: 'Active',
      hasRefreshToken: true,
    });
  });

  it('refreshes an expired token once for 20 concurrent callers in two processes', async () => {
    const p = await provider();
    const connection = await connect(sut, user, p.id);
    const other = await startConnectorApp({
      env: { DATABASE_URL: sut.env.DATABASE_URL, PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL },
    });
    try {
      await sut.db.query(
        `UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`,
        [connection.id],
      );
      const refreshesBefore = (await tokenCalls()).refresh_token ?? 0;
      const sources = [sut, other].map((app) => app.app.get(ConnectionTokens));
      const tokens = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sources[i % 2].tokenSource(connection.id).current()),
      );
      expect(new Set(tokens).size).toBe(1);
      expect((await tokenCalls()).refresh_token).toBe(refreshesBefore + 1);
      expect(Date.parse((await connectionRow(connection.id)).expiresAt)).toBeGreaterThan(Date.now() + 3_000_000);
    } finally {
      await other.close();
    }
  });

  it('marks the connection and its data sources NeedsReauth when refresh fails; authorizing again revives both', async () => {
    const p = await provider();
    const connection = await connect(sut, user, p.id);
    const dataSourceId = await dataSourceWithSelection(connection.id);
    expect(await status(dataSourceId)).toBe('Pending');

    await sim.admin.post('/oauth/revoke-refresh-tokens');
    await sim.admin.post('/expire', { accessTokens: true });
    const res = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(409);
    expect(res.body).toMatchObject({ code: 'REAUTH_REQUIRED', message: 'Re-authenticate' });
    expect((await connections()).find((c: { id: string }) => c.id === connection.id)).toMatchObject({
      status: 'NeedsReauth',
      problem: expect.stringContaining('invalid_grant'),
    });
    expect(await status(dataSourceId)).toBe('NeedsReauth');

    const again = await connect(sut, user, p.id);
    expect(again).toMatchObject({ id: connection.id, status: 'Active' });
    expect(await status(dataSourceId)).toBe('Pending');
    await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(200);
  });

  it('discards a data source’s selection when the user authorizes again as another document-system user', async () => {
    const p = await provider();
    const connection = await connect(sut, user, p.id);
    const dataSourceId = await dataSourceWithSelection(connection.id);
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'bob' });
    try {
      await connect(sut, user, p.id);
    } finally {
      await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    }
    const ds = (await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(200)).body;
    expect(ds).toMatchObject({ ingestionStatus: 'NotConfigured', selection: { include: [], exclude: [] } });
  });

  it('rotates the client secret: old connections keep working (refresh falls back to their secret), new ones use the new secret', async () => {
    const p = await provider({ refreshTokensBoundToSecret: true });
    const old = await connect(sut, user, p.id);
    const oldDataSource = await dataSourceWithSelection(old.id);
    const newSecret = `rotated-${randomUUID()}`;
    secretsSeen.push(newSecret);
    await registerClient(sim, {
      clientId: p.clientId,
      clientSecrets: [newSecret, p.secret],
      refreshTokensBoundToSecret: true,
    });
    const rotated = await http()
      .put(`/v2/OAuth/providers/${p.id}`)
      .set(admin.auth)
      .send(providerBody(sim, { clientId: p.clientId, clientSecret: newSecret }))
      .expect(200);
    expect(rotated.body.secretVersion).toBe(2);

    await http().get(`/v1/data-sources/${oldDataSource}/folders`).set(user.auth).expect(200); // its access token still works
    await sim.admin.post('/expire', { accessTokens: true, sessions: true });
    await http().get(`/v1/data-sources/${oldDataSource}/folders`).set(user.auth).expect(200); // refreshed with the old secret
    expect((await connections()).find((c: { id: string }) => c.id === old.id)).toMatchObject({
      status: 'Active',
      secretVersion: 1,
    });

    const newcomer = await testCaller({ tenantId: admin.tenantId });
    await registerClient(sim, { clientId: p.clientId, clientSecrets: [newSecret], refreshTokensBoundToSecret: true });
    const fresh = await connect(sut, newcomer, p.id);
    expect(fresh).toMatchObject({ status: 'Active', secretVersion: 2 });
    expect(await allStoredText(sut.db)).not.toContain(newSecret);
  });

  it('moving the token endpoint sends nothing of the old server there: old connections need a new authorization', async () => {
    const p = await provider();
    const old = await connect(sut, user, p.id);
    const dataSourceId = await dataSourceWithSelection(old.id);
    const movedTo = await new HttpPeer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
    }).start();
    try {
      const newSecret = `moved-${randomUUID()}`;
      secretsSeen.push(newSecret);
      await http()
        .put(`/v2/OAuth/providers/${p.id}`)
        .set(admin.auth)
        .send(
          providerBody(sim, { clientId: p.clientId, clientSecret: newSecret, tokenEndpoint: `${movedTo.url}/token` }),
        )
        .expect(200);
      await sim.admin.post('/expire', { accessTokens: true, sessions: true });
      const refused = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(409);
      expect(refused.body.code).toBe('REAUTH_REQUIRED');
      // Neither the old client secret nor the old server's refresh token went to the new address.
      expect(movedTo.received).toEqual([]);
      expect((await connections()).find((c: { id: string }) => c.id === old.id)).toMatchObject({
        status: 'NeedsReauth',
      });
    } finally {
      await movedTo.stop();
    }
  });

  it('lists only the caller’s connections; DELETE is 404 for others, 409 while a data source uses it, else 204 (once)', async () => {
    const p = await provider();
    const mine = await connect(sut, user, p.id);
    const someone = await testCaller({ tenantId: admin.tenantId });
    expect((await connections(someone)).map((c: { id: string }) => c.id)).not.toContain(mine.id);
    await http().delete(`/v2/OAuth/connections/${mine.id}`).set(someone.auth).expect(404);

    const dataSourceId = await dataSourceWithSelection(mine.id);
    expect((await http().delete(`/v2/OAuth/connections/${mine.id}`).set(user.auth).expect(409)).body.code).toBe(
      'CONNECTION_IN_USE',
    );
    expect((await http().delete(`/v2/OAuth/providers/${p.id}`).set(admin.auth).expect(409)).body.code).toBe(
      'PROVIDER_IN_USE',
    );
    await http().delete(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(204);
    // Two disconnects at once: one deletes it, the other finds it gone (404, not "in use").
    const both = await Promise.all([1, 2].map(() => http().delete(`/v2/OAuth/connections/${mine.id}`).set(user.auth)));
    expect(both.map((r) => r.status).sort()).toEqual([204, 404]);
    expect((await connections()).map((c: { id: string }) => c.id)).not.toContain(mine.id);
  });

  it('authorizes only providers of the caller’s tenant, and only with a valid body', async () => {
    const p = await provider();
    const stranger = await testCaller();
    await http().post('/v2/OAuth/authorize').set(stranger.auth).send({ providerId: p.id }).expect(404);
    expect(
      (await http().post('/v2/OAuth/authorize').set(user.auth).send({ providerId: 'nope' }).expect(400)).body.code,
    ).toBe('VALIDATION_FAILED');
    await http().post('/v2/OAuth/authorize').send({ providerId: p.id }).expect(401);
  });

  it('never logs a client secret, state, code, token or session (debug level, the whole run above)', async () => {
    expect(logLines.length).toBeGreaterThan(50);
    expect(logLines.some((line) => line.includes('/v2/OAuth/callback'))).toBe(true);
    const log = logLines.join('\n');
    expect(log).not.toMatch(/sim_(at|rt|st)_/);
    for (const secret of secretsSeen) expect(log).not.toContain(secret);
  });
});
