import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { eventually, RunningSimulator, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { connect, providerBody, registerClient, TEST_PUBLIC_BASE_URL } from './support/oauth-flow';

/**
 * CONTRACT.md: `DELETE /v2/OAuth/connections/{id}` is 409 while a data source uses it. A data source
 * created with that connection at the same moment must not outlive it: either the creation fails or the
 * deletion answers 409. Here the creation has checked the connection and waits (to read its credential)
 * while the user disconnects; it had been created anyway, pointing at a connection that was gone.
 * The credentials table is locked for a moment only to make the interleaving certain.
 */
describe('Disconnecting while a data source is created with the connection', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  });

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  it('the disconnect goes first and the creation answers 404: no data source is left using a deleted connection', async () => {
    const http = () => request(sut.app.getHttpServer());
    const admin = await testCaller({ roles: ['admin'] });
    const clientId = `client-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: ['secret'] });
    const provider = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret: 'secret' }))
      .expect(201);
    const connection = await connect(sut, admin, provider.body.id);
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);

    const lock = sut.db.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query('LOCK TABLE connector.credentials IN ACCESS EXCLUSIVE MODE');
    let created: request.Response;
    const creating = http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(admin.auth)
      .send({ name: 'Docs', credentialId: credential.body.id, connectionId: connection.id })
      .then((res) => (created = res));
    // The creation has checked the connection and now waits to read its credential.
    await eventually(async () => {
      const [{ waiting }] = await sut.db.query(
        `SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND relation = 'connector.credentials'::regclass`,
      );
      return waiting > 0;
    });
    const disconnected = await http().delete(`/v2/OAuth/connections/${connection.id}`).set(admin.auth);
    await lock.rollbackTransaction();
    await lock.release();
    await creating;

    const [{ dangling }] = await sut.db.query(
      `SELECT count(*)::int AS dangling FROM connector.data_sources d
       WHERE d."connectionId" = $1 AND NOT EXISTS (SELECT 1 FROM connector.oauth_connections c WHERE c.id = d."connectionId")`,
      [connection.id],
    );
    expect({ disconnect: disconnected.status, create: created!.status, code: created!.body.code, dangling }).toEqual({
      disconnect: 204,
      create: 404,
      code: 'CONNECTION_NOT_FOUND',
      dangling: 0,
    });
  });
});
