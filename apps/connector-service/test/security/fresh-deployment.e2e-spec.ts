import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import {
  answersWithoutToken,
  createHttpApp,
  freshDeploymentEnv,
  isolatedDatabase,
  corsHeadersToForeignOrigin,
  tokensNotRefused,
  testCaller,
  TestCaller,
} from '@app/testing';
import { AppModule } from '../../src/app.module';

/** What a caller without a token may reach besides the console's files: the probes and the OAuth redirect (not in /docs). */
const PUBLIC_OPERATIONS = ['GET /health/live', 'GET /health/ready', 'GET /v2/OAuth/callback'];

const provider = (endpoints: Record<string, string> = {}) => ({
  name: 'IdP',
  provider: 'GenericOAuth',
  authenticationType: 'StaticUserOauth',
  clientId: 'client',
  clientSecret: 'secret',
  authorizationEndpoint: 'https://idp.example.com/oauth/authorize',
  tokenEndpoint: 'https://idp.example.com/oauth/token',
  revokeEndpoint: '',
  supportedScopes: ['openid', 'offline_access'],
  ...endpoints,
});

/**
 * "Safe by default": the connector-service started with only what a fresh production deployment must give
 * (deploy/kubernetes/secrets/connector-service.env.example) has everything that can be opened closed.
 */
describe('Connector-service on a fresh deployment', () => {
  let app: INestApplication;
  let admin: TestCaller;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    const env = freshDeploymentEnv({
      DATABASE_URL: await isolatedDatabase(),
      BLOB_DIR: join(tmpdir(), `blobs-${randomBytes(6).toString('hex')}`),
    });
    app = await createHttpApp(AppModule.forRoot({ role: 'all', env }), 'Connector service');
    await app.init();
    admin = await testCaller({ roles: ['admin'] });
  });
  afterAll(() => app?.close());

  it('answers a caller without a token 401 on every operation but the probes and the OAuth redirect', async () => {
    const answers = await answersWithoutToken(app);
    expect(Object.keys(answers).length).toBeGreaterThan(30);
    const refused = Object.entries(answers).filter(([operation]) => !PUBLIC_OPERATIONS.includes(operation));
    expect(refused.filter(([, status]) => status !== 401)).toEqual([]);
    expect(Object.keys(answers)).toEqual(expect.arrayContaining(['GET /health/live', 'GET /health/ready']));
    await http().get('/metrics').expect(401);
    await http().get('/admin/queues').expect(401);
    await http().get('/admin/queues/api/queues').set(admin.auth).expect(403);
  });

  it('signs no development token, even for a caller on this machine, and tells the console so', async () => {
    const body = { tenantId: admin.tenantId, userId: admin.userId, roles: ['admin'] };
    await http().post('/console/dev-token').set('Host', 'localhost').send(body).expect(404);
    expect((await http().get('/console/config.json').expect(200)).body).toMatchObject({ devLogin: false });
  });

  it('sends no CORS header to any origin', async () => {
    expect(await corsHeadersToForeignOrigin(app, '/v1/credentials')).toEqual([]);
  });

  it.each(Object.entries({ admin: ['admin'], 'no role': [] as string[] }))(
    'refuses every malformed, unsigned, expired or unbound token (%s claims)',
    async (_name, roles) => {
      const caller = await testCaller({ roles });
      expect(await tokensNotRefused(app, '/v1/credentials', { tenant: caller.tenantId, roles })).toEqual([]);
      await http().get('/v1/credentials').set(caller.auth).expect(200);
    },
  );

  it('gives a token without roles no management of providers or credentials', async () => {
    const member = await testCaller({ tenantId: admin.tenantId });
    await http().post('/v2/OAuth/providers').set(member.auth).send(provider()).expect(403);
    const credential = { name: 'x', type: 'DocumentSystem', instanceUrl: 'https://ds.example.com', username: 'u' };
    await http()
      .post('/v1/credentials')
      .set(member.auth)
      .send({ ...credential, password: 'p', scope: 'Tenant' })
      .expect(403);
  });

  it.each([
    ['plain http', 'http://idp.example.com/oauth/token'],
    ['loopback', 'https://127.0.0.1/oauth/token'],
    ['localhost', 'https://localhost/oauth/token'],
    ['a private address', 'https://10.1.2.3/oauth/token'],
    ['the metadata address', 'https://169.254.169.254/latest'],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/oauth/token'],
  ])('refuses a token endpoint or instance URL at %s with 400 URL_NOT_ALLOWED', async (_what, target) => {
    const saved = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(provider({ tokenEndpoint: target }));
    expect(saved.status).toBe(400);
    const credential = { name: 'x', type: 'DocumentSystem', username: 'u', password: 'p', scope: 'Tenant' };
    const stored = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ ...credential, instanceUrl: target.replace(/\/[^/]*\/[^/]*$/, '') });
    expect(stored.status).toBe(400);
  });

  it('binds an authorization to the browser with an HttpOnly, Secure, SameSite cookie', async () => {
    const saved = await http().post('/v2/OAuth/providers').set(admin.auth).send(provider()).expect(201);
    const started = await http()
      .post('/v2/OAuth/authorize')
      .set(admin.auth)
      .send({ providerId: saved.body.id })
      .expect(200);
    const cookie = String(started.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it('refuses a body over 1 MiB with 413, to a caller without a token too', async () => {
    const res = await http()
      .post('/v1/credentials')
      .set('Content-Type', 'application/json')
      .send(`{"name":"${'x'.repeat(1024 * 1024)}"}`);
    expect(res.status).toBe(413);
  });
});
