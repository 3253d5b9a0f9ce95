import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { eventually, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { connect, providerBody, registerClient, TEST_PUBLIC_BASE_URL } from './support/oauth-flow';
import { syncToEnd } from './support/sync-helpers';

/** A data source whose OAuth connection can no longer be used: no run starts, and authorizing again restores it. */
describe('Syncing a data source that needs a new authorization', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, OAUTH_REFRESH_AHEAD_SECONDS: 1 } });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  async function provider(client: Record<string, unknown> = {}, body: Record<string, unknown> = {}) {
    const clientId = `client-${randomUUID()}`;
    const secret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [secret], ...client });
    return (
      await http()
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(providerBody(sim, { clientId, clientSecret: secret, ...body }))
        .expect(201)
    ).body.id as string;
  }

  async function dataSource(connectionId: string): Promise<string> {
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
    await http()
      .put(`/v1/data-sources/${ds.body.id}/selection`)
      .set(user.auth)
      .send({ include: [await sim.folderId('/Architecture')], exclude: [] })
      .expect(200);
    return ds.body.id as string;
  }

  const view = async (dataSourceId: string) =>
    (await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(200)).body;
  const runs = async (dataSourceId: string) =>
    (await http().get(`/v1/data-sources/${dataSourceId}/sync-runs`).set(user.auth).expect(200)).body as unknown[];

  it('answers 409 REAUTH_REQUIRED and makes no run after the refresh failed; authorizing again shows it Synced, not Pending', async () => {
    const providerId = await provider();
    const connection = await connect(sut, user, providerId);
    const synced = await dataSource(connection.id);
    expect(await syncToEnd(sut.app, user, synced)).toMatchObject({ status: 'Succeeded' });
    const neverSynced = await dataSource(connection.id);
    expect((await view(synced)).ingestionStatus).toBe('Synced');

    await sim.admin.post('/oauth/revoke-refresh-tokens');
    await sim.admin.post('/expire', { accessTokens: true });
    await http().get(`/v1/data-sources/${synced}/folders`).set(user.auth).expect(409);
    for (const id of [synced, neverSynced]) {
      expect((await view(id)).ingestionStatus).toBe('NeedsReauth');
      const before = (await runs(id)).length;
      for (let i = 0; i < 2; i++) {
        const refused = await http().post(`/v1/data-sources/${id}/sync`).set(user.auth).expect(409);
        expect(refused.body).toMatchObject({ statusCode: 409, code: 'REAUTH_REQUIRED' });
      }
      expect(await runs(id)).toHaveLength(before);
    }

    await connect(sut, user, providerId);
    // Its documents are there: Synced, as its last run left it; the one that never synced waits for its first.
    expect((await view(synced)).ingestionStatus).toBe('Synced');
    expect((await view(neverSynced)).ingestionStatus).toBe('Pending');
    expect(await syncToEnd(sut.app, user, synced)).toMatchObject({ status: 'Succeeded', mode: 'Incremental' });
  }, 90000);

  it('answers 409 REAUTH_REQUIRED and makes no run once a connection without a refresh token has expired', async () => {
    const providerId = await provider({ accessTokenTtlSeconds: 2 }, { supportedScopes: ['openid'] });
    const connection = await connect(sut, user, providerId);
    expect(connection.hasRefreshToken).toBe(false);
    const dataSourceId = await dataSource(connection.id);
    await eventually(
      async () =>
        (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body.find(
          (c: { id: string }) => c.id === connection.id,
        )?.status === 'Expired',
      10000,
      200,
    );
    const refused = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(user.auth).expect(409);
    expect(refused.body).toMatchObject({ code: 'REAUTH_REQUIRED' });
    expect(await runs(dataSourceId)).toHaveLength(0);
  }, 60000);
});
