import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { SimulatorConnections } from './support/simulator-connections';

/** A member's data source over the simulator in a fresh app: nothing of it is known to the picker yet. */
async function freshDataSource(sut: ConnectorTestApp, sim: RunningSimulator, connections: SimulatorConnections) {
  const admin = await testCaller({ roles: ['admin'] });
  const user = await testCaller({ tenantId: admin.tenantId });
  const credential = await request(sut.app.getHttpServer())
    .post('/v1/credentials')
    .set(admin.auth)
    .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
    .expect(201);
  const source = await request(sut.app.getHttpServer())
    .post(`/v1/projects/${randomUUID()}/data-sources`)
    .set(user.auth)
    .send({ name: 'Docs', credentialId: credential.body.id, connectionId: connections.connect(user) })
    .expect(201);
  return { user, dataSourceId: source.body.id as string };
}

describe('The folder picker when its bound runs out while it looks for a folder it has not shown', () => {
  const stack = connectorOnSimulator({ env: { PICKER_MAX_CALLS: 2 } });
  let user: TestCaller;

  beforeAll(async () => {
    ({ user, dataSourceId } = await freshDataSource(stack.sut, stack.sim, stack.connections));
  });
  let dataSourceId: string;

  it('says the document system did not answer in time (502), not that the folder does not exist (404)', async () => {
    // Two calls: the session and the workgroups; the walk to a folder under a workgroup needs a third.
    // (This app is fresh: no session or folder is known yet.)
    const drawings = await stack.sim.folderId('/Architecture/Drawings');
    const res = await stack
      .http()
      .get(`/v1/data-sources/${dataSourceId}/folders`)
      .query({ parentId: drawings })
      .set(user.auth);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 502, code: 'DOCUMENT_SYSTEM_UNAVAILABLE' });
    expect(res.body.message).toMatch(/bound/);
  });
});

/** Access tokens that come only after `delayMs`: an OAuth provider that is slow to refresh. */
class SlowTokens extends SimulatorConnections {
  delayMs = 0;

  tokenSource(connectionId: string) {
    const source = super.tokenSource(connectionId);
    const slowly =
      <T>(get: () => Promise<T>) =>
      async () => {
        // Unreferenced: the picker gives up on it first, and the test's process need not wait for it.
        await new Promise((resolve) => setTimeout(resolve, this.delayMs).unref());
        return get();
      };
    return { current: slowly(source.current), refreshed: slowly(source.refreshed) };
  }
}

describe('The folder picker when the access token is slow to come', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  it('answers within its bound of seconds all the same: the token counts against it', async () => {
    sim = await startSimulator();
    const tokens = new SlowTokens(sim);
    sut = await startConnectorApp({ env: { PICKER_MAX_SECONDS: 2 }, overrides: [[ConnectionTokens, tokens]] });
    const { user, dataSourceId } = await freshDataSource(sut, sim, tokens);

    tokens.delayMs = 6000;
    const started = Date.now();
    const res = await request(sut.app.getHttpServer()).get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 502, code: 'DOCUMENT_SYSTEM_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(5000); // the token alone takes 6 s

    // With the token quick again, the next request is answered.
    tokens.delayMs = 0;
    await request(sut.app.getHttpServer()).get(`/v1/data-sources/${dataSourceId}/folders`).set(user.auth).expect(200);
  }, 30_000);
});
