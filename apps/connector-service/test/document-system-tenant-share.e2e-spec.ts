import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorEnv } from '../src/connector-env';
import { callLimitsFrom } from '../src/document-system/call-limits';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';

/**
 * CONTRACT.md, "Fair share and limits": one tenant's work never waits behind another's. Two tenants use one
 * document system (one origin, as a SaaS document system is); only tenant A's folders are slow.
 */
describe('document-system calls of tenants sharing one document system', () => {
  const stack = connectorOnSimulator({ beforeClose: (sim) => sim.admin.post('/reset').catch(() => undefined) });
  let tenantA: TestCaller;
  let tenantB: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    tenantA = await testCaller({ roles: ['admin'] });
    tenantB = await testCaller({ roles: ['admin'] });
  });

  /**
   * Tenant A's 70 picker requests to its slow Architecture folder, spread over `aSources`; meanwhile tenant B's
   * page of Structural. What B saw, and how many of A's calls were in flight at once.
   */
  async function floodAThenAskB(aSources: string[], bId: string) {
    const architecture = await stack.sim.folderId('/Architecture');
    const structural = await stack.sim.folderId('/Structural');
    // Every picker warmed up (sessions open, folders shown).
    for (const aId of aSources) await http().get(`/v1/data-sources/${aId}/folders`).set(tenantA.auth).expect(200);
    await http().get(`/v1/data-sources/${bId}/folders`).query({ parentId: structural }).set(tenantB.auth).expect(200);

    // Only A's workgroup is slow: 9 s per call under it.
    await stack.sim.admin.put('/faults', { latencyMs: 9000, slowUnder: [architecture] });
    await stack.sim.admin.post('/stats/reset');
    const aRequests = Array.from({ length: 70 }, (_, i) =>
      http()
        .get(`/v1/data-sources/${aSources[i % aSources.length]}/folders`)
        .query({ parentId: architecture })
        .set(tenantA.auth)
        .then((r) => r.status),
    );
    const share = callLimitsFrom(stack.sut.app.get(ConnectorEnv)).callsPerTenant;
    const aCalls = async (): Promise<number> =>
      (await stack.sim.admin.get('/stats')).data.calls['GET /api/v1/folders/:id/children'] ?? 0;
    await eventually(async () => (await aCalls()) >= share, 10_000); // A's share is taken: the rest of A waits
    await new Promise((resolve) => setTimeout(resolve, 300)); // any call past A's share would have come by now
    const aInFlight = await aCalls();

    const started = Date.now();
    const b = await http().get(`/v1/data-sources/${bId}/folders`).query({ parentId: structural }).set(tenantB.auth);
    const took = Date.now() - started;
    await Promise.all(aRequests);
    await stack.sim.admin.put('/faults', { latencyMs: 0, slowUnder: [] });
    return {
      status: b.status,
      fast: took < 4000 /* 9.3 s before, 0.1 s alone */,
      aWithinItsShare: aInFlight > 0 && aInFlight <= share,
    };
  }

  it("shows tenant B's folders at once while tenant A's 70 picker requests wait on A's slow folder", async () => {
    const aId = await dataSourceSelecting(stack.sut.app, stack.sim, tenantA, {
      login: SEED_USERS.bob, // sees Architecture only
      connectionId: stack.connections.connect(tenantA),
      include: [await stack.sim.folderId('/Architecture')],
    });
    const bId = await dataSourceSelecting(stack.sut.app, stack.sim, tenantB, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(tenantB),
      include: [await stack.sim.folderId('/Structural')],
    });
    expect(await floodAThenAskB([aId], bId)).toEqual({ status: 200, fast: true, aWithinItsShare: true });
  }, 40_000);

  it("gives tenant A one share over all its logins: A's two credentials flooding its slow folder still leave B fast", async () => {
    const architecture = await stack.sim.folderId('/Architecture');
    const aSources = [
      await dataSourceSelecting(stack.sut.app, stack.sim, tenantA, {
        login: SEED_USERS.bob,
        connectionId: stack.connections.connect(tenantA),
        include: [architecture],
      }),
      await dataSourceSelecting(stack.sut.app, stack.sim, tenantA, {
        login: SEED_USERS.alice, // another login of A's, which sees Architecture too
        connectionId: stack.connections.connect(tenantA),
        include: [architecture],
      }),
    ];
    const bId = await dataSourceSelecting(stack.sut.app, stack.sim, tenantB, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(tenantB),
      include: [await stack.sim.folderId('/Structural')],
    });
    expect(await floodAThenAskB(aSources, bId)).toEqual({ status: 200, fast: true, aWithinItsShare: true });
  }, 40_000);
});
