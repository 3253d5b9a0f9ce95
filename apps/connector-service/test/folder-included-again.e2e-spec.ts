import { randomUUID } from 'node:crypto';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { dataSourceSelecting } from './support/data-source-on';
import { syncToEnd } from './support/sync-helpers';

const DETAILS = '/Architecture/Drawings/Details';
const FACADE = `${DETAILS}/Détails – Façade`;

/**
 * A selection that includes /Architecture, excludes Drawings/Details and includes Details' Façade again
 * (CONTRACT.md: "an included folder inside an excluded one is taken again"). A run's start records where the
 * Façade and its ancestors (Drawings among them) are; the listing of /Architecture still lists Drawings.
 */
describe('A folder included again inside an excluded one', () => {
  const stack = connectorOnSimulator();
  const { http } = stack;
  let caller: TestCaller;
  let expected: string[];

  const simPaths = async (path: string): Promise<string[]> =>
    (await stack.sim.admin.get('/files', { params: { under: await stack.sim.folderId(path) } })).data.map(
      (f: { path: string }) => f.path,
    );
  const documentPaths = async (dataSourceId: string): Promise<string[]> =>
    (
      await stack.sut.db.query('SELECT path FROM connector.documents WHERE "dataSourceId" = $1 ORDER BY path', [
        dataSourceId,
      ])
    ).map((r: { path: string }) => r.path);
  const select = async (dataSourceId: string, include: string[], exclude: string[]) =>
    http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(caller.auth)
      .send({
        include: await Promise.all(include.map((p) => stack.sim.folderId(p))),
        exclude: await Promise.all(exclude.map((p) => stack.sim.folderId(p))),
      })
      .expect(200);
  const newDataSource = async () =>
    dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [await stack.sim.folderId('/Architecture')],
      projectId: randomUUID(),
    });
  const drawingsFolders = async (dataSourceId: string) =>
    (
      await http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: await stack.sim.folderId('/Architecture/Drawings') })
        .set(caller.auth)
        .expect(200)
    ).body as { folder: { path: string }; folders: Array<{ name: string }> };

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
    const facade = new Set(await simPaths(FACADE));
    const details = new Set((await simPaths(DETAILS)).filter((p) => !facade.has(p)));
    expected = (await simPaths('/Architecture')).filter((p) => !details.has(p)).sort();
  });

  async function expectAllTaken(dataSourceId: string) {
    const paths = await documentPaths(dataSourceId);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/Architecture/Drawings/Level 1/A-101 Floor Plan.pdf',
        '/Architecture/Drawings/Level 1/A-102 Reflected Ceiling Plan.pdf',
        '/Architecture/Drawings/Level 2/A-201 Floor Plan.pdf',
        '/Architecture/Drawings/Sections/A-501 Wall Sections.pdf',
        `${FACADE}/Façade elevations.md`,
        `${FACADE}/Panels/Type A/Anchors/anchor-notes.txt`,
      ]),
    );
    expect(paths).toEqual(expected);
    const drawings = await drawingsFolders(dataSourceId);
    expect(drawings.folder.path).toBe('/Architecture/Drawings');
    expect(drawings.folders.map((f) => f.name).sort()).toEqual(['Details', 'Level 1', 'Level 2', 'Sections']);
  }

  it('takes every folder of the included one on a first run, the included-again folder and its ancestors too', async () => {
    const dataSourceId = await newDataSource();
    await select(dataSourceId, ['/Architecture', FACADE], [DETAILS]);
    expect(await syncToEnd(stack.sut.app, caller, dataSourceId)).toMatchObject({
      status: 'Succeeded',
      counts: { failed: 0, deleted: 0, added: expected.length },
    });
    await expectAllTaken(dataSourceId);
  });

  it('deletes nothing when the exclusion and the include again come after a full sync; run after run', async () => {
    const dataSourceId = await newDataSource();
    expect(await syncToEnd(stack.sut.app, caller, dataSourceId)).toMatchObject({
      status: 'Succeeded',
      counts: { failed: 0 },
    });
    await select(dataSourceId, ['/Architecture', FACADE], [DETAILS]);
    for (let round = 1; round <= 2; round++) {
      expect(await syncToEnd(stack.sut.app, caller, dataSourceId)).toMatchObject({
        status: 'Succeeded',
        counts: { failed: 0, deleted: 0, added: 0 },
      });
      await expectAllTaken(dataSourceId);
    }
  });

  it('lists a selected folder once, at one place with its files, when the listing of another selected folder reaches it', async () => {
    const structural = await stack.sim.folderId('/Structural');
    const [outer, inner] = await Promise.all(
      ['Outer', 'Inner'].map(
        async (name) =>
          (await stack.sim.admin.post('/folders', { parentId: structural, name: `${name}-${randomUUID()}` })).data,
      ),
    );
    await stack.sim.admin.post('/files', { parentId: outer.id, name: 'outer.txt', text: 'outer' });
    await stack.sim.admin.post('/files', { parentId: inner.id, name: 'inner.txt', text: 'inner' });
    const dataSourceId = await newDataSource();
    await http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(caller.auth)
      .send({ include: [outer.id, inner.id], exclude: [] })
      .expect(200);
    expect(await syncToEnd(stack.sut.app, caller, dataSourceId)).toMatchObject({ status: 'Succeeded' });
    // Selected as siblings, Inner now sits inside Outer: both selected folders reach it.
    await stack.sim.admin.post(`/nodes/${inner.id}/relocate`, { parentId: outer.id });
    const run = await syncToEnd(stack.sut.app, caller, dataSourceId);
    expect(run).toMatchObject({ status: 'Succeeded', counts: { failed: 0, deleted: 0 } });
    const [{ listedPages }] = await stack.sut.db.query('SELECT "listedPages" FROM connector.sync_runs WHERE id = $1', [
      run.id,
    ]);
    expect(listedPages).toBe(2);
    // Inner keeps the place the run's start gave it (its recorded one: not found below its recorded parent).
    const names = (await documentPaths(dataSourceId)).map((p) => p.split('/').pop());
    expect(names.sort()).toEqual(['inner.txt', 'outer.txt']);
    const shown = (
      await http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: inner.id })
        .set(caller.auth)
        .expect(200)
    ).body as { folder: { path: string }; files: Array<{ path: string }> };
    expect(shown.files.map((f) => f.path)).toEqual([`${shown.folder.path}/inner.txt`]);
  });
});
