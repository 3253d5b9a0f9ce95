import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { SimulatorStore } from '../../document-system-simulator/src/store/simulator-store';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd, SyncRunView } from './support/sync-helpers';

interface LedgerRow {
  externalId: string;
  documentId: string | null;
  path: string;
  outcome: string;
}

interface TreeFile {
  documentId: string;
  name: string;
  path: string;
}

/**
 * A document system may list one file (one id) in two folders, as a link or shortcut does. A run takes the
 * file once: one document, counted once with one outcome, and a run with nothing changed shows it unchanged
 * whichever of its two folders is listed first.
 */
describe('A file listed in two selected folders', () => {
  const stack = connectorOnSimulator();
  let user: TestCaller;
  let dataSourceId: string;
  const folders: Record<'left' | 'right', string> = { left: '', right: '' };
  let sharedId: string;
  const { http } = stack;

  async function ledger(syncRunId: string): Promise<LedgerRow[]> {
    const page = (await http().get(`/v1/sync-runs/${syncRunId}/files`).query({ limit: 100 }).set(user.auth).expect(200))
      .body as { items: LedgerRow[]; nextCursor: string | null };
    expect(page.nextCursor).toBeNull();
    return page.items;
  }

  async function treeFiles(folderId: string): Promise<TreeFile[]> {
    const tree = (
      await http().get(`/v1/data-sources/${dataSourceId}/tree`).query({ folderId }).set(user.auth).expect(200)
    ).body as { files: TreeFile[] };
    return tree.files;
  }

  /** The shared file's documents in the tree: exactly one, in one of the two folders. */
  async function sharedDocument(): Promise<TreeFile & { folder: 'left' | 'right' }> {
    const found = [
      ...(await treeFiles(folders.left)).map((f) => ({ ...f, folder: 'left' as const })),
      ...(await treeFiles(folders.right)).map((f) => ({ ...f, folder: 'right' as const })),
    ].filter((f) => f.name === 'shared.txt');
    expect(found).toHaveLength(1);
    const { documentId, name, path, folder } = found[0];
    return { documentId, name, path, folder };
  }

  /** An incremental run whose listing of `first` comes before that of the other folder. */
  async function incrementalListing(first: 'left' | 'right'): Promise<SyncRunView> {
    const later = first === 'left' ? folders.right : folders.left;
    await stack.sim.admin.put('/faults', { latencyMs: 1500, slowUnder: [later] });
    try {
      return await syncToEnd(stack.sut.app, user, dataSourceId);
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0, slowUnder: [] });
    }
  }

  beforeAll(async () => {
    user = await testCaller({ roles: ['admin'] });
    const parent = (
      await stack.sim.admin.post('/folders', { parentId: await stack.sim.folderId('/Structural'), name: 'Twice' })
    ).data.id;
    folders.left = (await stack.sim.admin.post('/folders', { parentId: parent, name: 'Left' })).data.id;
    folders.right = (await stack.sim.admin.post('/folders', { parentId: parent, name: 'Right' })).data.id;
    await stack.sim.admin.post('/files', { parentId: folders.left, name: 'left-only.txt', text: 'only on the left' });
    await stack.sim.admin.post('/files', {
      parentId: folders.right,
      name: 'right-only.txt',
      text: 'only on the right',
    });
    sharedId = (
      await stack.sim.admin.post('/files', { parentId: folders.left, name: 'shared.txt', text: 'in both folders' })
    ).data.id;
    // The simulator's listing of Right shows the same file (same id) too.
    const store = stack.sim.app.get(SimulatorStore);
    store.children.set(folders.right, [...(store.children.get(folders.right) ?? []), sharedId]);
    dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, user, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(user),
      include: [folders.left, folders.right],
      name: 'Twice',
    });
  });

  it('lists the file under both folders in the simulator', async () => {
    const under = async (id: string) =>
      (await stack.sim.admin.get('/files', { params: { under: id } })).data as TreeFile[];
    expect((await under(folders.left)).some((f) => f.name === 'shared.txt')).toBe(true);
    expect((await under(folders.right)).some((f) => f.name === 'shared.txt')).toBe(true);
  });

  it('a full sync adds it once: one document, one ledger row, counted once', async () => {
    const run = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect(run).toMatchObject({ mode: 'Full', status: 'Succeeded' });
    expect(run.counts).toEqual({
      discovered: 3,
      added: 3,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      skipped: 0,
    });
    const rows = (await ledger(run.id)).filter((r) => r.externalId === sharedId);
    expect(rows).toEqual([expect.objectContaining({ outcome: 'Added' })]);
    expect(rows[0].documentId).toBe((await sharedDocument()).documentId);
  });

  it.each(['left', 'right', 'left', 'right'] as const)(
    'an incremental run with nothing changed, %s listed first, shows it unchanged once, where it was',
    async (first) => {
      const before = await sharedDocument();
      const run = await incrementalListing(first);
      expect(run).toMatchObject({ mode: 'Incremental', status: 'Succeeded' });
      expect(run.counts).toEqual({
        discovered: 3,
        added: 0,
        updated: 0,
        unchanged: 3,
        deleted: 0,
        failed: 0,
        skipped: 0,
      });
      const rows = (await ledger(run.id)).filter((r) => r.externalId === sharedId);
      expect(rows).toEqual([
        expect.objectContaining({ outcome: 'Unchanged', documentId: before.documentId, path: before.path }),
      ]);
      expect(await sharedDocument()).toEqual(before);
    },
  );
});
