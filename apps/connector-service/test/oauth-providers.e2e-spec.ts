import request from 'supertest';
import { RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { allStoredText, ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { providerBody, TEST_PUBLIC_BASE_URL, TEST_REDIRECT_URI } from './support/oauth-flow';

describe('OAuth providers (admin)', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let manager: TestCaller;
  let member: TestCaller;
  let stranger: TestCaller;
  const http = () => request(sut.app.getHttpServer());
  const SECRET = 'provider-client-secret-7f3a9c';

  beforeAll(async () => {
    sim = await startSimulator();
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: `${TEST_PUBLIC_BASE_URL}/` } });
    admin = await testCaller({ roles: ['admin'] });
    manager = await testCaller({ tenantId: admin.tenantId, roles: ['oauth-connectors:manage'] });
    member = await testCaller({ tenantId: admin.tenantId });
    stranger = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await sim.close();
  });

  const create = (body: Record<string, unknown>, caller = admin) =>
    http().post('/v2/OAuth/providers').set(caller.auth).send(body);

  it('creates a provider: 201 with redirectUri exactly {PUBLIC_BASE_URL}/v2/OAuth/callback, secret configured but never shown', async () => {
    const res = await create(providerBody(sim, { clientSecret: SECRET })).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Document system',
      provider: 'GenericOAuth',
      authenticationType: 'StaticUserOauth',
      clientId: 'client',
      authorizationEndpoint: `${sim.url}/oauth/authorize`,
      tokenEndpoint: `${sim.url}/oauth/token`,
      revokeEndpoint: '',
      supportedScopes: ['openid', 'offline_access'],
      behaviour: { tokenEndpointAuthMethod: 'CLIENT_SECRET_POST' },
      clientSecretConfigured: true,
      secretVersion: 1,
      redirectUri: TEST_REDIRECT_URI,
      warnings: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const listed = await http().get('/v2/OAuth/providers').set(member.auth).expect(200);
    const fetched = await http().get(`/v2/OAuth/providers/${res.body.id}`).set(admin.auth).expect(200);
    for (const text of [
      JSON.stringify(res.body),
      JSON.stringify(listed.body),
      JSON.stringify(fetched.body),
      await allStoredText(sut.db),
    ])
      expect(text).not.toContain(SECRET);
  });

  it('defaults tokenEndpointAuthMethod to CLIENT_SECRET_POST and accepts CLIENT_SECRET_BASIC', async () => {
    const { behaviour, ...withoutBehaviour } = providerBody(sim);
    expect(behaviour).toBeDefined();
    expect((await create(withoutBehaviour).expect(201)).body.behaviour).toEqual({
      tokenEndpointAuthMethod: 'CLIENT_SECRET_POST',
    });
    const basic = await create(
      providerBody(sim, { behaviour: { tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC' } }),
    ).expect(201);
    expect(basic.body.behaviour).toEqual({ tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC' });
  });

  it('saves a provider without offline_access, with a warning that users must re-authenticate', async () => {
    const res = await create(providerBody(sim, { supportedScopes: ['openid'] })).expect(201);
    expect(res.body.warnings).toEqual([expect.stringMatching(/offline_access.*re-authenticate/)]);
  });

  it.each([
    ['a provider other than GenericOAuth', { provider: 'Okta' }, 'provider'],
    [
      'an authenticationType other than StaticUserOauth',
      { authenticationType: 'ClientCredentials' },
      'authenticationType',
    ],
    ['scopes without openid', { supportedScopes: ['offline_access'] }, 'supportedScopes'],
    ['an endpoint that is not a URL', { tokenEndpoint: 'not a url' }, 'tokenEndpoint'],
    ['a relative endpoint', { authorizationEndpoint: '/oauth/authorize' }, 'authorizationEndpoint'],
    ['an ftp endpoint', { tokenEndpoint: 'ftp://auth.example.com/token' }, 'tokenEndpoint'],
    [
      'an unknown auth method',
      { behaviour: { tokenEndpointAuthMethod: 'PRIVATE_KEY_JWT' } },
      'behaviour.tokenEndpointAuthMethod',
    ],
    ['a missing clientSecret', { clientSecret: undefined }, 'clientSecret'],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field', async (_what, change, field) => {
    const res = await create(providerBody(sim, change)).expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(res.body.details)).toContain(field);
  });

  it('refuses unknown keys, and plain-http endpoints unless ALLOW_INSECURE_URLS', async () => {
    expect((await create({ ...providerBody(sim), extra: 1 }).expect(400)).body.code).toBe('VALIDATION_FAILED');
    const strict = await startConnectorApp({ env: { ALLOW_INSECURE_URLS: false } });
    try {
      const res = await request(strict.app.getHttpServer())
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(providerBody(sim))
        .expect(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'authorizationEndpoint',
        'tokenEndpoint',
      ]);
    } finally {
      await strict.close();
    }
  });

  it('lets admins and oauth-connectors:manage manage providers; members may only read (403 to write)', async () => {
    const created = (await create(providerBody(sim), manager).expect(201)).body;
    await create(providerBody(sim), member).expect(403);
    await http().put(`/v2/OAuth/providers/${created.id}`).set(member.auth).send(providerBody(sim)).expect(403);
    await http().delete(`/v2/OAuth/providers/${created.id}`).set(member.auth).expect(403);
    await http().get(`/v2/OAuth/providers/${created.id}`).set(member.auth).expect(200);
    await http().get('/v2/OAuth/providers').expect(401);
  });

  it('hides another tenant’s provider behind 404 for every verb', async () => {
    const created = (await create(providerBody(sim)).expect(201)).body;
    await http().get(`/v2/OAuth/providers/${created.id}`).set(stranger.auth).expect(404);
    await http().put(`/v2/OAuth/providers/${created.id}`).set(stranger.auth).send(providerBody(sim)).expect(404);
    await http().delete(`/v2/OAuth/providers/${created.id}`).set(stranger.auth).expect(404);
    expect(
      (await http().get('/v2/OAuth/providers').set(stranger.auth).expect(200)).body.map((p: { id: string }) => p.id),
    ).not.toContain(created.id);
  });

  it('PUT replaces the fields; a new clientSecret bumps secretVersion, none keeps it', async () => {
    const created = (await create(providerBody(sim)).expect(201)).body;
    const renamed = await http()
      .put(`/v2/OAuth/providers/${created.id}`)
      .set(admin.auth)
      .send({ ...providerBody(sim, { name: 'Renamed' }), clientSecret: undefined })
      .expect(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', secretVersion: 1 });
    const rotated = await http()
      .put(`/v2/OAuth/providers/${created.id}`)
      .set(admin.auth)
      .send(providerBody(sim, { clientSecret: 'rotated-secret-value' }))
      .expect(200);
    expect(rotated.body).toMatchObject({ secretVersion: 2, clientSecretConfigured: true });
    expect(await allStoredText(sut.db)).not.toContain('rotated-secret-value');
  });

  it('refuses a null clientSecret with 400, as it refuses any other value that is no secret', async () => {
    const created = (await create(providerBody(sim)).expect(201)).body;
    for (const body of [
      { ...providerBody(sim), clientSecret: null },
      { ...providerBody(sim, { tokenEndpoint: `${sim.url}/oauth/token2` }), clientSecret: null },
    ]) {
      const res = await http().put(`/v2/OAuth/providers/${created.id}`).set(admin.auth).send(body).expect(400);
      expect(res.body).toMatchObject({ details: [expect.objectContaining({ field: 'clientSecret' })] });
    }
  });

  it('deletes a provider: 204, then 404', async () => {
    const created = (await create(providerBody(sim)).expect(201)).body;
    await http().delete(`/v2/OAuth/providers/${created.id}`).set(admin.auth).expect(204);
    await http().get(`/v2/OAuth/providers/${created.id}`).set(admin.auth).expect(404);
  });
});
