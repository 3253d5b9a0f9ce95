import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ServerResponse } from 'node:http';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import request from 'supertest';
import { HttpPeer, testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { HttpDocumentSystemAdapter } from '../../src/document-system/http-document-system.adapter';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { callback, startAuthorization, TEST_PUBLIC_BASE_URL } from '../support/oauth-flow';

/** This machine's own name: /etc/hosts maps it to loopback, as a rebinding DNS would. No name rule catches it. */
const LOOPBACK_NAME = hostname();
const SOCKET_DETAILS = /ECONN|ENOTFOUND|EAI_AGAIN|127\.0\.0\.1|::1|\d+\.\d+\.\d+\.\d+:\d+/;

const tokenAnswer = (res: ServerResponse): void => {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ access_token: 'at', token_type: 'Bearer', expires_in: 3600 }));
};

function providerAt(base: string, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Provider',
    provider: 'GenericOAuth',
    authenticationType: 'StaticUserOauth',
    clientId: 'client',
    clientSecret: 'secret',
    authorizationEndpoint: `${base}/authorize`,
    tokenEndpoint: `${base}/token`,
    revokeEndpoint: '',
    supportedScopes: ['openid', 'offline_access'],
    ...overrides,
  };
}

const credentialBody = (instanceUrl: string) => ({
  name: 'Docs',
  type: 'DocumentSystem',
  instanceUrl,
  username: 'alice',
  password: 'pw',
  scope: 'Tenant',
});

/** POST /v2/OAuth/authorize, then the provider's redirect back with a code: the connector calls the token endpoint. */
async function exchangeAt(sut: ConnectorTestApp, caller: TestCaller, providerId: string) {
  const started = await startAuthorization(sut, caller, providerId);
  return callback(sut, { code: 'the-code', state: started.body.state }).then((res) => res);
}

describe('Outbound URL policy, ALLOW_PRIVATE_NETWORKS off', () => {
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startConnectorApp({ env: { ALLOW_PRIVATE_NETWORKS: false, PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
    admin = await testCaller({ roles: ['admin'] });
  });
  afterAll(() => sut.close());

  it.each([
    ['the metadata address', 'http://169.254.169.254/'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-compatible loopback', 'http://[::7f00:1]/'],
    ['a private address', 'https://10.0.0.1'],
    ['a unique-local address', 'https://[fd00::1]'],
    ['CGNAT', 'https://100.64.0.1'],
    ['localhost', 'http://localhost:8080'],
  ])('refuses a credential instanceUrl at %s with 400 URL_NOT_ALLOWED', async (_what, instanceUrl) => {
    const res = await http().post('/v1/credentials').set(admin.auth).send(credentialBody(instanceUrl)).expect(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      code: 'URL_NOT_ALLOWED',
      details: [{ field: 'instanceUrl', problems: [expect.stringMatching(/loopback, private/)] }],
    });
  });

  it('refuses such an instanceUrl on update and in an inline credential of a new data source', async () => {
    const created = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send(credentialBody('https://docs.example.com'))
      .expect(201);
    const update = await http()
      .put(`/v1/credentials/${created.body.id}`)
      .set(admin.auth)
      .send(credentialBody('http://169.254.169.254'))
      .expect(400);
    expect(update.body).toMatchObject({ code: 'URL_NOT_ALLOWED', details: [{ field: 'instanceUrl' }] });
    const inline = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(admin.auth)
      .send({ name: 'DS', credential: credentialBody('http://[::ffff:127.0.0.1]/'), connectionId: randomUUID() })
      .expect(400);
    expect(inline.body).toMatchObject({ code: 'URL_NOT_ALLOWED', details: [{ field: 'credential.instanceUrl' }] });
  });

  it('refuses provider endpoints at private, metadata or unique-local addresses, naming each field', async () => {
    const token = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerAt('https://idp.example.com', { tokenEndpoint: 'http://10.0.0.1/token' }))
      .expect(400);
    expect(token.body).toMatchObject({ code: 'URL_NOT_ALLOWED', details: [{ field: 'tokenEndpoint' }] });
    const all = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerAt('http://169.254.169.254', { revokeEndpoint: 'https://[fd00::1]/revoke' }))
      .expect(400);
    expect(all.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'authorizationEndpoint',
      'revokeEndpoint',
      'tokenEndpoint',
    ]);
  });

  it('refuses the same endpoints when a saved provider is updated', async () => {
    const saved = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerAt('https://idp.example.com'))
      .expect(201);
    const res = await http()
      .put(`/v2/OAuth/providers/${saved.body.id}`)
      .set(admin.auth)
      .send(providerAt('https://idp.example.com', { tokenEndpoint: 'http://10.0.0.1/token' }))
      .expect(400);
    expect(res.body).toMatchObject({ code: 'URL_NOT_ALLOWED', details: [{ field: 'tokenEndpoint' }] });
  });

  it('refuses the token call to a host name that resolves to loopback, naming the rule and no address', async () => {
    const idp = await new HttpPeer((_req, res) => tokenAnswer(res)).start();
    try {
      const base = `http://${LOOPBACK_NAME}:${new URL(idp.url).port}`;
      const provider = await http().post('/v2/OAuth/providers').set(admin.auth).send(providerAt(base)).expect(201);
      const res = await exchangeAt(sut, admin, provider.body.id);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        code: 'OAUTH_PROVIDER_UNAVAILABLE',
        message: expect.stringMatching(/outbound URL policy/),
      });
      expect(JSON.stringify(res.body)).not.toMatch(SOCKET_DETAILS);
      expect(idp.received).toHaveLength(0);
    } finally {
      await idp.stop();
    }
  });

  it('refuses a document-system session at a host name that resolves to loopback', async () => {
    const docs = await new HttpPeer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"sessionToken":"st","expiresIn":600}');
    }).start();
    const adapter = new HttpDocumentSystemAdapter({ allowInsecure: true, allowPrivate: false });
    try {
      const login = {
        instanceUrl: `http://${LOOPBACK_NAME}:${new URL(docs.url).port}`,
        username: 'alice',
        password: 'pw',
      };
      const error = await adapter
        .openSession('tenant-1', login, { current: async () => 'at', refreshed: async () => 'at' })
        .catch((e: Error) => e);
      expect(error).toMatchObject({ message: expect.stringMatching(/outbound URL policy/) });
      expect((error as Error).message).not.toMatch(SOCKET_DETAILS);
      expect(docs.received).toHaveLength(0);
    } finally {
      adapter.onModuleDestroy();
      await docs.stop();
    }
  });

  it('says "the provider did not answer" without a socket code when nothing listens', async () => {
    const idp = await new HttpPeer().start();
    const base = `http://${LOOPBACK_NAME}:${new URL(idp.url).port}`;
    await idp.stop();
    const open = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
    try {
      const provider = await request(open.app.getHttpServer())
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(providerAt(base))
        .expect(201);
      const res = await exchangeAt(open, admin, provider.body.id);
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('OAUTH_PROVIDER_UNAVAILABLE');
      expect(JSON.stringify(res.body)).not.toMatch(SOCKET_DETAILS);
    } finally {
      await open.close();
    }
  });
});

describe('Outbound calls never follow redirects nor an environment proxy', () => {
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let target: HttpPeer;
  let redirector: HttpPeer;

  beforeAll(async () => {
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
    admin = await testCaller({ roles: ['admin'] });
    target = await new HttpPeer((_req, res) => tokenAnswer(res)).start();
    redirector = await new HttpPeer((req, res) => {
      res.writeHead(302, { location: `${target.url}${req.path}` }).end();
    }).start();
  });
  afterAll(async () => {
    await Promise.all([target.stop(), redirector.stop()]);
    await sut.close();
  });

  it('does not follow a token endpoint that answers 302 to another server', async () => {
    const provider = await request(sut.app.getHttpServer())
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerAt(redirector.url))
      .expect(201);
    const res = await exchangeAt(sut, admin, provider.body.id);
    expect(res.status).toBe(502);
    expect(res.body.message).toMatch(/HTTP 302/);
    expect(redirector.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('does not follow a document system that answers 302 to another server', async () => {
    const adapter = new HttpDocumentSystemAdapter({ allowInsecure: true, allowPrivate: true });
    try {
      const login = { instanceUrl: redirector.url, username: 'alice', password: 'pw' };
      await expect(
        adapter.openSession('tenant-1', login, { current: async () => 'at', refreshed: async () => 'at' }),
      ).rejects.toMatchObject({ code: 'CREDENTIALS_INVALID' });
      expect(target.received).toHaveLength(0);
    } finally {
      adapter.onModuleDestroy();
    }
  });

  it('calls the token endpoint directly even when HTTP_PROXY is set', async () => {
    const proxy = await new HttpPeer((_req, res) => tokenAnswer(res)).start();
    const saved = {
      HTTP_PROXY: process.env.HTTP_PROXY,
      http_proxy: process.env.http_proxy,
      NO_PROXY: process.env.NO_PROXY,
      no_proxy: process.env.no_proxy,
    };
    Object.assign(process.env, { HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: '', no_proxy: '' });
    try {
      const provider = await request(sut.app.getHttpServer())
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(providerAt(target.url))
        .expect(201);
      await exchangeAt(sut, admin, provider.body.id);
      expect(proxy.received).toHaveLength(0);
      expect(target.received.map((r) => r.path)).toContain('/token');
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await proxy.stop();
    }
  });
});

describe('A host that refuses and a host that stays silent answer alike (no port scanning through us)', () => {
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  let silent: Server;
  const held: Socket[] = [];
  const connections = {
    ownConnection: async () => ({
      id: 'c',
      tenantId: '',
      userId: '',
      providerId: 'p',
      subject: null,
      status: 'Active',
    }),
    tenantConnection: async () => ({
      id: 'c',
      tenantId: '',
      userId: '',
      providerId: 'p',
      subject: null,
      status: 'Active',
    }),
    tokenSource: () => ({ current: async () => 'at', refreshed: async () => 'at' }),
  };

  beforeAll(async () => {
    // Loopback stands for a public host here (ALLOW_PRIVATE_NETWORKS is on in tests).
    sut = await startConnectorApp({
      env: { DOCUMENT_SYSTEM_DEADLINE_MS: 1500 },
      overrides: [[ConnectionTokens, connections]],
    });
    caller = await testCaller({ roles: ['admin'] });
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    await new Promise((resolve) => silent.close(resolve));
    await sut.close();
  });

  async function validate(instanceUrl: string) {
    const http = () => request(sut.app.getHttpServer());
    const id = (await http().post('/v1/credentials').set(caller.auth).send(credentialBody(instanceUrl)).expect(201))
      .body.id;
    const res = await http()
      .post(`/v1/credentials/${id}/validate`)
      .set(caller.auth)
      .send({ connectionId: randomUUID() });
    return { status: res.status, code: res.body.code };
  }

  it('credential validation: a refused connection and one that never answers get the same status and code', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const refused = await validate(`http://127.0.0.1:${closedPort}`);
    const quiet = await validate(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    expect(refused).toEqual(quiet);
    expect(refused).toEqual({ status: 502, code: 'DOCUMENT_SYSTEM_UNAVAILABLE' });
  }, 30_000);
});
