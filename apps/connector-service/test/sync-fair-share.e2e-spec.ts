import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { FairShare, fairShareToken } from '@app/queue';
import { eventually, killChild, RunningSimulator, startChildApp, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { SYNC_QUEUE } from '../src/sync/sync.jobs';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceSelecting } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { waitForRun } from './support/sync-helpers';

const WORKER = 'apps/connector-service/test/support/run-connector.ts';
/** Sync slots of each worker process: two of them share 2 × 4, one of each reserved for a newcomer. */
const SLOTS_PER_WORKER = 4;
/** Half of the 6 slots not reserved. */
const HALF_NOT_RESERVED = 3;
/** Tenant A's data sources, each a folder of 10 subfolders, every call on them answered after 4 s. */
const SLOW_SOURCES = 6;
const SLOW_FOLDERS = 10;
const SLOW_CALL_MS = 4000;

/**
 * Sync slots are shared across every worker process: tenant A's runs over a slow document system hold at
 * most half of those not reserved (counted over both workers), and tenant B's small sync goes through meanwhile.
 * Before the fair share each worker ran 8 steps of each kind first come, first served: A's 60 slow listings
 * were ahead of B's and B waited for rounds of them (over 15 s).
 */
describe('Fair share of sync slots across two worker processes', () => {
  let sim: RunningSimulator;
  let api: ConnectorTestApp;
  let connections: SimulatorConnections;
  const workers: ChildProcess[] = [];
  const http = () => request(api.app.getHttpServer());

  const folderWith = async (parentId: string, name: string, subfolders: number, files: number) => {
    const folder = (await sim.admin.post('/folders', { parentId, name })).data.id as string;
    for (let i = 0; i < subfolders; i++) await folderWith(folder, `sub-${i}`, 0, 1);
    for (let i = 0; i < files; i++)
      await sim.admin.post('/files', { parentId: folder, name: `note-${i}.txt`, text: `${name} note ${i}` });
    return folder;
  };
  const sourceOver = (caller: TestCaller, folderId: string) =>
    dataSourceSelecting(api.app, sim, caller, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(caller),
      include: [folderId],
    });
  const sync = async (caller: TestCaller, dataSourceId: string): Promise<string> =>
    (await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)).body.syncRunId;

  beforeAll(async () => {
    sim = await startSimulator();
    connections = new SimulatorConnections(sim);
    api = await startConnectorApp({
      env: { SYNC_SLOTS: SLOTS_PER_WORKER },
      role: 'api',
      overrides: [[ConnectionTokens, connections]],
    });
    for (let i = 0; i < 2; i++)
      workers.push(await startChildApp(WORKER, api.env, 'worker', { TEST_SIMULATOR_URL: sim.url }));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => killChild(worker)));
    await sim?.admin.put('/faults', { latencyMs: 0, slowUnder: [] });
    await api?.close();
    await sim?.close();
  });

  it("holds tenant A's slow runs to half of the sync slots not reserved while tenant B's small sync ends within seconds", async () => {
    const tenantA = await testCaller({ roles: ['admin'] });
    const tenantB = await testCaller({ roles: ['admin'] });
    const structural = await sim.folderId('/Structural');
    const slowRoot = await folderWith(structural, `slow-${randomUUID()}`, 0, 0);
    const slowSources: string[] = [];
    for (let i = 0; i < SLOW_SOURCES; i++)
      slowSources.push(await sourceOver(tenantA, await folderWith(slowRoot, `big-${i}`, SLOW_FOLDERS, 1)));
    const small = await sourceOver(tenantB, await folderWith(structural, `small-${randomUUID()}`, 0, 2));
    await sim.admin.put('/faults', { latencyMs: SLOW_CALL_MS, slowUnder: [slowRoot] });

    const fairShare = api.app.get<FairShare>(fairShareToken(SYNC_QUEUE));
    for (const id of slowSources) await sync(tenantA, id);
    // A takes its half of the slots, whichever worker runs its steps, and has more waiting.
    await eventually(async () => {
      const state = await fairShare.state();
      return state.slots === 2 * SLOTS_PER_WORKER && state.held[tenantA.tenantId] === HALF_NOT_RESERVED;
    }, 60_000);

    let heldByA = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const state = await fairShare.state();
        heldByA = Math.max(heldByA, state.held[tenantA.tenantId] ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const startedAt = Date.now();
    const run = await waitForRun(api.app, tenantB, await sync(tenantB, small), 60_000);
    const tookMs = Date.now() - startedAt;
    watching = false;
    await watch;

    expect(run).toMatchObject({ status: 'Succeeded', counts: { added: 2 } });
    // Within seconds on a loaded machine; behind A's listings (60 of 4 s, 16 at a time) it took over 15 s.
    expect(tookMs).toBeLessThan(8000);
    expect(heldByA).toBe(HALF_NOT_RESERVED);
    expect((await fairShare.state()).waiting[tenantA.tenantId]).toBeGreaterThan(0);
  }, 240_000);
});
