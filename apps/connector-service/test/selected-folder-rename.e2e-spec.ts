import { randomUUID } from 'node:crypto';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToSearchable, waitForRun } from './support/sync-helpers';

/** A selected folder renamed in the document system after the user picked it. */
describe('A selected folder renamed in the document system', () => {
  const stack = connectorOnSimulator();
  const projectId = randomUUID();

  const hitPath = async (caller: TestCaller, q: string, pathPrefix?: string) =>
    (
      await stack
        .http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q, ...(pathPrefix ? { pathPrefix } : {}) })
        .set(caller.auth)
        .expect(200)
    ).body.hits.map((h: { path: string }) => h.path);

  /** A new tenant's data source selecting a new folder under /Structural that holds one text file. */
  async function pickedFolder(name: string, file: { name: string; text: string }) {
    const caller = await testCaller({ roles: ['admin'] });
    const folder = (await stack.sim.admin.post('/folders', { parentId: await stack.sim.folderId('/Structural'), name }))
      .data;
    await stack.sim.admin.post('/files', { parentId: folder.id, ...file });
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
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
    await syncToSearchable(stack.sut.app, caller, dataSourceId);
    expect(await hitPath(caller, 'crane')).toEqual([`/Structural/${name}/crane.txt`]);

    await stack.sim.admin.post(`/nodes/${folder.id}/relocate`, { name: `${name} (archived)` });
    await stack.sim.admin.post('/files', {
      parentId: folder.id,
      name: 'scaffold.txt',
      text: 'scaffold inspection on Friday',
    });
    await syncToSearchable(stack.sut.app, caller, dataSourceId);

    const renamed = `/Structural/${name} (archived)`;
    expect(await hitPath(caller, 'crane')).toEqual([`${renamed}/crane.txt`]);
    expect(await hitPath(caller, 'scaffold', renamed)).toEqual([`${renamed}/scaffold.txt`]);
    const structural = (
      await stack
        .http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: await stack.sim.folderId('/Structural') })
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
    await stack.sim.admin.put('/faults', { latencyMs: 8000 });
    try {
      const started = Date.now();
      const { syncRunId } = (
        await stack.http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)
      ).body;
      // A start holds one of a process's two start slots, which every tenant's runs share.
      await eventually(
        async () =>
          (await stack.sut.db.query(`SELECT 1 FROM connector.sync_tasks WHERE "syncRunId" = $1`, [syncRunId])).length >
          0,
        20_000,
        50,
      );
      expect(Date.now() - started).toBeLessThan(6_000);
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
      expect((await waitForRun(stack.sut.app, caller, syncRunId, 60_000)).status).toBe('Succeeded');
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  }, 90_000);
});
