import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import {
  everyRedisValue,
  everyStoredValue,
  HttpPeer,
  RunningSimulator,
  secretsIn,
  testCaller,
  TestCaller,
  TEST_ENCRYPTION_KEY,
  TEST_JWT_SECRET,
} from '@app/testing';
import { startSimulator } from '../../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import {
  authorizeAtProvider,
  callback,
  providerBody,
  registerClient,
  TEST_PUBLIC_BASE_URL,
} from '../support/oauth-flow';
import { syncToEnd } from '../support/sync-helpers';

/** What the document system and its OAuth host hand out, wherever it turns up: tokens, sessions, id tokens. */
const ISSUED = /sim_(at|rt|st)_[\w-]{8,}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}/g;

/** What a token request carries that is no secret. */
const NOT_SECRET = ['grant_type', 'client_id', 'redirect_uri', 'token_type_hint'];

/**
 * "Secrets never appear in responses, logs, plaintext columns or Redis": an admin and a user through a day of
 * the connector at the most verbose log level, the failing paths too (a wrong client secret, a refused and an
 * unavailable token endpoint, a document system that fails and drops calls, expired tokens and sessions, a wrong
 * password, an unreachable instance), then every log line, every Redis key under the service's prefix and every
 * column of its schema are searched for every secret the day used.
 */
describe('Connector-service secrets: nowhere but where they belong', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let tokenEndpoint: HttpPeer;
  let admin: TestCaller;
  let user: TestCaller;
  /** How the token endpoint answers the next calls: as the simulator does, 500, or invalid_grant. */
  let tokenMode: 'pass' | 'fail' | 'refuse' = 'pass';
  const lines: string[] = [];
  const answers: string[] = [];
  const secrets: Record<string, string> = {
    jwtSecret: TEST_JWT_SECRET,
    encryptionKey: TEST_ENCRYPTION_KEY.split(':')[1],
    password: SEED_USERS.alice.password,
  };
  const issued = new Set<string>();
  const http = () => request(sut.app.getHttpServer());
  const keep = (res: request.Response) => (answers.push(res.text, JSON.stringify(res.headers)), res);

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    tokenEndpoint = await new HttpPeer(async (req, res) => {
      for (const [name, value] of new URLSearchParams(req.body)) if (!NOT_SECRET.includes(name)) secrets[name] = value;
      if (tokenMode === 'fail') return void res.writeHead(500).end('upstream broke');
      if (tokenMode === 'refuse')
        return void res
          .writeHead(400, { 'content-type': 'application/json' })
          // A provider that quotes the request back, its Authorization header too.
          .end(
            JSON.stringify({ error: 'invalid_grant', error_description: `${req.headers.authorization} ${req.body}` }),
          );
      const answer = await fetch(`${sim.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': String(req.headers['content-type']),
          authorization: req.headers.authorization ?? '',
        },
        body: req.body,
      });
      const text = await answer.text();
      for (const token of text.match(ISSUED) ?? []) issued.add(token);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    }).start();
    sut = await startConnectorApp({
      env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, LOG_LEVEL: 'trace' },
      logLines: lines,
    });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
    Object.assign(secrets, { adminJwt: admin.token, userJwt: user.token });
  });
  afterAll(async () => {
    await sut?.close();
    await tokenEndpoint?.stop();
    await sim?.close();
  });

  async function provider(registered: string, entered = registered, basic = false): Promise<string> {
    const clientId = `client-${randomUUID()}`;
    secrets[`clientSecret-${entered}`] = entered;
    secrets[`basicCredentials-${entered}`] = `${clientId}:${entered}`;
    await registerClient(sim, {
      clientId,
      clientSecrets: [registered],
      tokenEndpointAuthMethods: [basic ? 'client_secret_basic' : 'client_secret_post'],
    });
    const body = providerBody(sim, {
      clientId,
      clientSecret: entered,
      tokenEndpoint: `${tokenEndpoint.url}/oauth/token`,
      behaviour: { tokenEndpointAuthMethod: basic ? 'CLIENT_SECRET_BASIC' : 'CLIENT_SECRET_POST' },
    });
    return keep(await http().post('/v2/OAuth/providers').set(admin.auth).send(body).expect(201)).body.id;
  }

  async function authorize(providerId: string, status: number): Promise<request.Response> {
    const { query } = await authorizeAtProvider(sut, user, providerId);
    secrets[`state-${query.state}`] = query.state;
    secrets[`code-${query.code}`] = query.code;
    return keep(await callback(sut, query).expect(status));
  }

  it('goes through a day of connections, credentials and syncs, the failing ones included', async () => {
    const clientSecret = `cs-${randomBytes(16).toString('hex')}`;
    await authorize(await provider(clientSecret, `${clientSecret}-wrong`), 400);
    const providerId = await provider(clientSecret, clientSecret, true);
    const connection = (await authorize(providerId, 200)).body;
    tokenMode = 'refuse';
    await authorize(await provider(`${clientSecret}-post`), 400);
    await authorize(await provider(`${clientSecret}-basic`, `${clientSecret}-basic`, true), 400);
    tokenMode = 'pass';
    keep(await callback(sut, { state: 'unknown-state', error: 'access_denied' }).expect(400));

    const credential = (body: Record<string, unknown>) =>
      http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({
          name: 'Sim',
          type: 'DocumentSystem',
          instanceUrl: sim.url,
          ...SEED_USERS.alice,
          scope: 'Tenant',
          ...body,
        });
    const good = keep(await credential({}).expect(201)).body.id;
    const wrongPassword = `wrong-${randomBytes(8).toString('hex')}`;
    secrets.wrongPassword = wrongPassword;
    const wrong = keep(await credential({ password: wrongPassword }).expect(201)).body.id;
    const closed = await new HttpPeer().start();
    const unreachable = keep(await credential({ instanceUrl: closed.url }).expect(201)).body.id;
    await closed.stop();
    for (const [id, status] of [
      [good, 200],
      [wrong, 422],
      [unreachable, 502],
    ] as const)
      keep(
        await http()
          .post(`/v1/credentials/${id}/validate`)
          .set(user.auth)
          .send({ connectionId: connection.id })
          .expect(status),
      );

    const ds = keep(
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(user.auth)
        .send({ name: 'Docs', credentialId: good, connectionId: connection.id })
        .expect(201),
    ).body.id;
    const workgroups = keep(await http().get(`/v1/data-sources/${ds}/folders`).set(user.auth).expect(200)).body.items;
    keep(
      await http()
        .put(`/v1/data-sources/${ds}/selection`)
        .set(user.auth)
        .send({ include: [workgroups[0].id], exclude: [] })
        .expect(200),
    );
    await sim.admin.put('/faults', { rate5xx: 0.2, rate429: 0.1, dropRate: 0.1, retryAfterSeconds: 0 });
    keep(await http().get(`/v1/data-sources/${ds}/sync-runs`).set(user.auth));
    expect((await syncToEnd(sut.app, user, ds)).status).toMatch(/Succeeded/);
    await sim.admin.put('/faults', { rate5xx: 0, rate429: 0, dropRate: 0 });

    await sim.admin.post('/expire', { accessTokens: true, sessions: true });
    expect((await syncToEnd(sut.app, user, ds)).status).toBe('Succeeded');
    await sim.admin.post('/expire', { accessTokens: true, sessions: true });
    tokenMode = 'fail';
    keep(await http().get(`/v1/data-sources/${ds}/folders`).set(user.auth));
    tokenMode = 'refuse';
    keep(await http().get(`/v1/data-sources/${ds}/folders`).set(user.auth).expect(409));
    keep(await http().get('/v2/OAuth/connections').set(user.auth).expect(200));
    keep(await http().get(`/v1/data-sources/${ds}`).set(user.auth).expect(200));
    keep(await http().get('/v1/credentials').set(admin.auth).expect(200));
    keep(await http().get(`/v2/OAuth/providers/${providerId}`).set(admin.auth).expect(200));
  }, 120_000);

  it('keeps every secret out of the answers, the log, Redis and the database', async () => {
    expect(lines.length).toBeGreaterThan(50);
    expect(issued.size).toBeGreaterThan(3);
    expect(Object.keys(secrets)).toEqual(expect.arrayContaining(['code_verifier', 'refresh_token', 'client_secret']));
    for (const token of issued) secrets[token] = token;
    const log = lines.join('\n');
    const redis = await everyRedisValue(String(sut.env.REDIS_URL), String(sut.env.QUEUE_PREFIX));
    const database = await everyStoredValue(sut.db, 'connector');
    const everything = [answers.join('\n'), log, redis, database].join('\n');
    expect({
      answers: secretsIn(answers.join('\n'), secrets),
      log: secretsIn(log, secrets),
      redis: secretsIn(redis, secrets),
      database: secretsIn(database, secrets),
      issuedAnywhere: everything.match(ISSUED) ?? [],
    }).toEqual({ answers: [], log: [], redis: [], database: [], issuedAnywhere: [] });
  });
});
