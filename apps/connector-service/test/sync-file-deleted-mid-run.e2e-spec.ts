import { randomUUID } from 'node:crypto';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToSearchable, SyncRunView, waitForExtraction, waitForRun } from './support/sync-helpers';

const DOWNLOADS = 'GET /api/v1/files/:id/content';
/** How long the simulator holds the doomed file's download before it answers: the test deletes the file meanwhile. */
const HELD_MS = 4000;

/**
 * A person deletes a file in the document system while a run is under way: after the run listed it, before
 * its download was answered. The run treats the file as gone, as the next run would, not as a failure.
 */
describe('Sync when a listed file is deleted before its download', () => {
  const stack = connectorOnSimulator();
  let caller: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
  });
  afterEach(async () => {
    await stack.sim.admin.put('/faults', { latencyMs: 0, slowUnder: [] });
  });

  /**
   * A folder of four kept files and a subfolder holding the file to delete (alone in its download batch), each
   * text with a word of its own; a data source of a new project selecting the folder.
   */
  async function project() {
    const word = () => `w${randomUUID().replaceAll('-', '')}`;
    const root = await stack.sim.folderId('/Structural');
    const folder = (
      await stack.sim.admin.post('/folders', { parentId: root, name: `deleted-${randomUUID().slice(0, 8)}` })
    ).data;
    const later = (await stack.sim.admin.post('/folders', { parentId: folder.id, name: 'Later' })).data;
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt'])
      await stack.sim.admin.post('/files', { parentId: folder.id, name, text: `kept ${word()}` });
    const doomedWord = word();
    const doomed = (await stack.sim.admin.post('/files', { parentId: later.id, name: 'doomed.txt', text: doomedWord }))
      .data;
    const projectId = randomUUID();
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [folder.id],
      projectId,
    });
    return {
      projectId,
      dataSourceId,
      laterId: later.id as string,
      doomed: { id: doomed.id as string, word: doomedWord },
    };
  }

  /**
   * Starts a run whose download of `fileId` the simulator holds for HELD_MS, and deletes the file once that
   * download has reached the simulator (its `downloads`-th download of the run): the run listed it, and its
   * download is answered after the deletion, certainly.
   */
  async function runDeleting(dataSourceId: string, fileId: string, downloads: number): Promise<SyncRunView> {
    await stack.sim.admin.put('/faults', { latencyMs: HELD_MS, slowUnder: [fileId] });
    await stack.sim.admin.post('/stats/reset');
    const started = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202);
    const askedAt = await eventually(
      async () => ((await stack.sim.admin.get('/stats')).data.calls[DOWNLOADS] ?? 0) >= downloads && Date.now(),
      30_000,
      20,
    );
    await stack.sim.admin.delete(`/nodes/${fileId}`);
    // Deleted while the download waited: the window was the test's, not a race it happened to win.
    expect(Date.now() - askedAt).toBeLessThan(HELD_MS);
    const run = await waitForRun(stack.sut.app, caller, started.body.syncRunId, 60_000);
    await waitForExtraction(stack.sut.app, caller, dataSourceId);
    return run;
  }

  /** What a user sees of the deleted file: the run's failed files, the folder it was in, its document, search. */
  async function traces(run: SyncRunView, p: Awaited<ReturnType<typeof project>>) {
    const failed = (await http().get(`/v1/sync-runs/${run.id}/files`).query({ outcome: 'Failed' }).set(caller.auth))
      .body.items;
    const row = (
      await http().get(`/v1/sync-runs/${run.id}/files`).query({ limit: 1000 }).set(caller.auth)
    ).body.items.find((r: { externalId: string }) => r.externalId === p.doomed.id);
    const tree = (
      await http().get(`/v1/data-sources/${p.dataSourceId}/tree`).query({ folderId: p.laterId }).set(caller.auth)
    ).body;
    const hits = (
      await http().get(`/v1/projects/${p.projectId}/search`).query({ q: p.doomed.word }).set(caller.auth).expect(200)
    ).body.hits;
    const documents = await stack.sut.db.query(
      'SELECT id FROM connector.documents WHERE "dataSourceId" = $1 AND "externalId" = $2',
      [p.dataSourceId, p.doomed.id],
    );
    const source = (await http().get(`/v1/data-sources/${p.dataSourceId}`).set(caller.auth).expect(200)).body;
    return { failed, row, treeFiles: tree.files, hits, documents, ingestionStatus: source.ingestionStatus };
  }

  it('ends a full run Succeeded: the file it never had is discovered, not added, not failed, and left nowhere', async () => {
    const p = await project();

    const run = await runDeleting(p.dataSourceId, p.doomed.id, 5);

    expect({ mode: run.mode, status: run.status, error: run.error, counts: run.counts }).toEqual({
      mode: 'Full',
      status: 'Succeeded',
      error: null,
      counts: { discovered: 5, added: 4, updated: 0, unchanged: 0, deleted: 0, failed: 0, skipped: 0 },
    });
    expect(await traces(run, p)).toEqual({
      failed: [],
      row: undefined,
      treeFiles: [],
      hits: [],
      documents: [],
      ingestionStatus: 'Synced',
    });
  }, 90_000);

  it('ends an incremental run Succeeded: the changed file that vanished has its document deleted and counted', async () => {
    const p = await project();
    const first = await syncToSearchable(stack.sut.app, caller, p.dataSourceId);
    expect(first).toMatchObject({ status: 'Succeeded', counts: { added: 5, failed: 0 } });
    const before = await traces(first, p);
    expect(before.hits).toHaveLength(1);
    expect(before.treeFiles).toHaveLength(1);
    await stack.sim.admin.patch(`/files/${p.doomed.id}`, { text: `${p.doomed.word} second version` });

    // Only the changed file is downloaded this time: its download is the run's first.
    const run = await runDeleting(p.dataSourceId, p.doomed.id, 1);

    expect({ mode: run.mode, status: run.status, error: run.error, counts: run.counts }).toEqual({
      mode: 'Incremental',
      status: 'Succeeded',
      error: null,
      counts: { discovered: 5, added: 0, updated: 0, unchanged: 4, deleted: 1, failed: 0, skipped: 0 },
    });
    const after = await traces(run, p);
    expect(after).toEqual({
      failed: [],
      row: expect.objectContaining({ name: 'doomed.txt', outcome: 'Deleted', reason: null }),
      treeFiles: [],
      hits: [],
      documents: [],
      ingestionStatus: 'Synced',
    });
    // A later run finds nothing more to do.
    const next = await syncToSearchable(stack.sut.app, caller, p.dataSourceId);
    expect(next).toMatchObject({ status: 'Succeeded', counts: { discovered: 4, unchanged: 4, deleted: 0, failed: 0 } });
  }, 120_000);
});
