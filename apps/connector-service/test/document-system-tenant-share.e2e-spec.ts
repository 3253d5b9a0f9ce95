import request from 'supertest';
import { eventually, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorEnv } from '../src/connector-env';
import { callLimitsFrom } from '../src/document-system/call-limits';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceSelecting } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';

/**
 * CONTRACT.md, "Fair share and limits": one tenant's work never waits behind another's. Two tenants use one
 * document system (one origin, as a SaaS document system is); only tenant A's folders are slow.
 */
describe('document-system calls of tenants sharing one document system', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let tenantA: TestCaller;
  let tenantB: TestCaller;
  let connections: SimulatorConnections;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    tenantA = await testCaller({ roles: ['admin'] });
    tenantB = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sim.admin.post('/reset').catch(() => undefined);
    await sut?.close();
    await sim?.close();
  });

  /**
   * Tenant A's 70 picker requests to its slow Architecture folder, spread over `aSources`; meanwhile tenant B's
   * page of Structural. What B saw, and how many of A's calls were in flight at once.
   */
  async function floodAThenAskB(aSources: string[], bId: string) {
    const architecture = await sim.folderId('/Architecture');
    const structural = await sim.folderId('/Structural');
    // Every picker warmed up (sessions open, folders shown).
    for (const aId of aSources) await http().get(`/v1/data-sources/${aId}/folders`).set(tenantA.auth).expect(200);
    await http().get(`/v1/data-sources/${bId}/folders`).query({ parentId: structural }).set(tenantB.auth).expect(200);

    // Only A's workgroup is slow: 9 s per call under it.
    await sim.admin.put('/faults', { latencyMs: 9000, slowUnder: [architecture] });
    await sim.admin.post('/stats/reset');
    const aRequests = Array.from({ length: 70 }, (_, i) =>
      http()
        .get(`/v1/data-sources/${aSources[i % aSources.length]}/folders`)
        .query({ parentId: architecture })
        .set(tenantA.auth)
        .then((r) => r.status),
    );
    const share = callLimitsFrom(sut.app.get(ConnectorEnv)).callsPerTenant;
    const aCalls = async (): Promise<number> =>
      (await sim.admin.get('/stats')).data.calls['GET /api/v1/folders/:id/children'] ?? 0;
    await eventually(async () => (await aCalls()) >= share, 10_000); // A's share is taken: the rest of A waits
    await new Promise((resolve) => setTimeout(resolve, 300)); // any call past A's share would have come by now
    const aInFlight = await aCalls();

    const started = Date.now();
    const b = await http().get(`/v1/data-sources/${bId}/folders`).query({ parentId: structural }).set(tenantB.auth);
    const took = Date.now() - started;
    await Promise.all(aRequests);
    await sim.admin.put('/faults', { latencyMs: 0, slowUnder: [] });
    return {
      status: b.status,
      fast: took < 4000 /* 9.3 s before, 0.1 s alone */,
      aWithinItsShare: aInFlight > 0 && aInFlight <= share,
    };
  }

  it("shows tenant B's folders at once while tenant A's 70 picker requests wait on A's slow folder", async () => {
    const aId = await dataSourceSelecting(sut.app, sim, tenantA, {
      login: SEED_USERS.bob, // sees Architecture only
      connectionId: connections.connect(tenantA),
      include: [await sim.folderId('/Architecture')],
    });
    const bId = await dataSourceSelecting(sut.app, sim, tenantB, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(tenantB),
      include: [await sim.folderId('/Structural')],
    });
    expect(await floodAThenAskB([aId], bId)).toEqual({ status: 200, fast: true, aWithinItsShare: true });
  }, 40_000);

  it("gives tenant A one share over all its logins: A's two credentials flooding its slow folder still leave B fast", async () => {
    const architecture = await sim.folderId('/Architecture');
    const aSources = [
      await dataSourceSelecting(sut.app, sim, tenantA, {
        login: SEED_USERS.bob,
        connectionId: connections.connect(tenantA),
        include: [architecture],
      }),
      await dataSourceSelecting(sut.app, sim, tenantA, {
        login: SEED_USERS.alice, // another login of A's, which sees Architecture too
        connectionId: connections.connect(tenantA),
        include: [architecture],
      }),
    ];
    const bId = await dataSourceSelecting(sut.app, sim, tenantB, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(tenantB),
      include: [await sim.folderId('/Structural')],
    });
    expect(await floodAThenAskB(aSources, bId)).toEqual({ status: 200, fast: true, aWithinItsShare: true });
  }, 40_000);
});
