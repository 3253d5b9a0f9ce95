import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { eventually, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceSelecting } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { syncToSearchable, waitForRun } from './support/sync-helpers';

/** A selected folder renamed in the document system after the user picked it. */
describe('A selected folder renamed in the document system', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let connections: SimulatorConnections;
  const projectId = randomUUID();

  beforeAll(async () => {
    sim = await startSimulator();
    connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
  });

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  const hitPath = async (caller: TestCaller, q: string, pathPrefix?: string) =>
    (
      await request(sut.app.getHttpServer())
        .get(`/v1/projects/${projectId}/search`)
        .query({ q, ...(pathPrefix ? { pathPrefix } : {}) })
        .set(caller.auth)
        .expect(200)
    ).body.hits.map((h: { path: string }) => h.path);

  /** A new tenant's data source selecting a new folder under /Structural that holds one text file. */
  async function pickedFolder(name: string, file: { name: string; text: string }) {
    const caller = await testCaller({ roles: ['admin'] });
    const folder = (await sim.admin.post('/folders', { parentId: await sim.folderId('/Structural'), name })).data;
    await sim.admin.post('/files', { parentId: folder.id, ...file });
    const dataSourceId = await dataSourceSelecting(sut.app, sim, caller, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(caller),
      include: [folder.id],
      projectId,
    });
    return { caller, folder, dataSourceId };
  }

  it('gives the documents below it their new path at the next sync, old and new ones alike', async () => {
    const name = `Logistics-${randomUUID().slice(0, 8)}`;
    const { caller, folder, dataSourceId } = await pickedFolder(name, {
      name: 'crane.txt',
      text: 'the tower crane arrives Monday',
    });
    await syncToSearchable(sut.app, caller, dataSourceId);
    expect(await hitPath(caller, 'crane')).toEqual([`/Structural/${name}/crane.txt`]);

    await sim.admin.post(`/nodes/${folder.id}/relocate`, { name: `${name} (archived)` });
    await sim.admin.post('/files', {
      parentId: folder.id,
      name: 'scaffold.txt',
      text: 'scaffold inspection on Friday',
    });
    await syncToSearchable(sut.app, caller, dataSourceId);

    const renamed = `/Structural/${name} (archived)`;
    expect(await hitPath(caller, 'crane')).toEqual([`${renamed}/crane.txt`]);
    expect(await hitPath(caller, 'scaffold', renamed)).toEqual([`${renamed}/scaffold.txt`]);
    const structural = (
      await request(sut.app.getHttpServer())
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: await sim.folderId('/Structural') })
        .set(caller.auth)
        .expect(200)
    ).body;
    expect(structural.folders.map((f: { name: string; path: string }) => [f.name, f.path])).toEqual([
      [`${name} (archived)`, renamed],
    ]);
  });

  it('does not wait long on a slow document system for that lookup: the run starts with what was recorded', async () => {
    const { caller, dataSourceId } = await pickedFolder(`slow-${randomUUID()}`, {
      name: 'plan.txt',
      text: 'site plan',
    });
    await sim.admin.put('/faults', { latencyMs: 8000 });
    try {
      const started = Date.now();
      const { syncRunId } = (
        await request(sut.app.getHttpServer())
          .post(`/v1/data-sources/${dataSourceId}/sync`)
          .set(caller.auth)
          .expect(202)
      ).body;
      // A start holds one of a process's two start slots, which every tenant's runs share.
      await eventually(
        async () =>
          (await sut.db.query(`SELECT 1 FROM connector.sync_tasks WHERE "syncRunId" = $1`, [syncRunId])).length > 0,
        20_000,
        50,
      );
      expect(Date.now() - started).toBeLessThan(6_000);
      await sim.admin.put('/faults', { latencyMs: 0 });
      expect((await waitForRun(sut.app, caller, syncRunId, 60_000)).status).toBe('Succeeded');
    } finally {
      await sim.admin.put('/faults', { latencyMs: 0 });
    }
  }, 90_000);
});
