import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem, HostileFile } from './hostile-document-system';

const file = (id: string): HostileFile => ({
  id,
  name: `${id}.txt`,
  content: { kind: 'bytes', body: Buffer.from(id) },
});

/** Which folders each folder lists besides its files (id → [subfolder id, name shown]). */
const SUBFOLDERS: Record<string, Array<[string, string]>> = {
  root: [['loop', 'Loop']],
  loop: [['root', 'Back']], // Root again, under another name: a loop
  dag: [
    ['a', 'A'],
    ['b', 'B'],
  ],
  a: [['shared', 'Shared']],
  b: [['shared', 'Shared']], // the same folder under a second parent
};

interface TreeFolder {
  id: string;
  name: string;
  path: string;
}

/**
 * A document system whose folders are not a tree: a folder listed below itself, or under two parents. A run
 * places each folder where it first reached it, lists it once, and ends; the tree shows that hierarchy.
 */
describe('A folder hierarchy with a loop or a shared folder', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());
  let syncing = false;

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem(
      ['root', 'loop', 'dag', 'a', 'b', 'shared'].map((id) => ({
        id,
        name: id === 'root' ? 'Root' : id === 'dag' ? 'Dag' : id,
        files: [file(`${id}-file`)],
      })),
    ).start();
    hostile.listings = async (what) => {
      if (!('folderId' in what))
        return {
          items: [
            { id: 'wg-root', name: 'Root', rootFolderId: 'root' },
            { id: 'wg-dag', name: 'Dag', rootFolderId: 'dag' },
          ],
          nextCursor: null,
        };
      // B answers once Shared was listed (reached under A first), so "first" is the same in every run.
      if (syncing && what.folderId === 'b') await until(() => listingsOf('shared') > 0);
      const { folderId } = what;
      const folders = (SUBFOLDERS[folderId] ?? []).map(([id, name]) => ({
        kind: 'folder',
        id,
        name,
        parentId: folderId,
      }));
      const files = [
        { kind: 'file', id: `${folderId}-file`, name: `${folderId}-file.txt`, parentId: folderId, version: '1' },
      ];
      return { items: [...folders, ...files], nextCursor: null };
    };
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });

  const listingsOf = (folderId: string) =>
    hostile.requests.filter((r) => r.startsWith(`/api/v1/folders/${folderId}/children`)).length;
  const tree = async (dataSourceId: string, folderId?: string) =>
    (
      await http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query(folderId ? { folderId } : {})
        .set(caller.auth)
        .expect(200)
    ).body as { folder: TreeFolder | null; folders: TreeFolder[]; files: Array<{ name: string; path: string }> };
  const shape = async (dataSourceId: string, folderId: string) => {
    const page = await tree(dataSourceId, folderId);
    return {
      folder: page.folder && { name: page.folder.name, path: page.folder.path },
      folders: page.folders.map((f) => [f.id, f.path]),
      files: page.files.map((f) => f.path),
    };
  };
  async function run(dataSourceId: string) {
    hostile.requests.length = 0;
    syncing = true;
    try {
      return await syncToEnd(sut.app, caller, dataSourceId, 30_000);
    } finally {
      syncing = false;
    }
  }

  it('keeps a selected folder listed again below itself at its place, lists it once, and ends; run after run', async () => {
    const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, ['root']);
    for (let round = 1; round <= 2; round++) {
      expect(await run(dataSourceId)).toMatchObject({ status: 'Succeeded', counts: { failed: 0 } });
      expect(listingsOf('root')).toBe(1);
      expect((await tree(dataSourceId)).folders.map((f) => f.id)).toEqual(['root']);
      expect(await shape(dataSourceId, 'root')).toEqual({
        folder: { name: 'Root', path: '/Root' },
        folders: [['loop', '/Root/Loop']],
        files: ['/Root/root-file.txt'],
      });
      expect(await shape(dataSourceId, 'loop')).toEqual({
        folder: { name: 'Loop', path: '/Root/Loop' },
        folders: [],
        files: ['/Root/Loop/loop-file.txt'],
      });
    }
  });

  it('shows a folder listed under two parents once, under the first, with its files on that path', async () => {
    const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, ['dag']);
    for (let round = 1; round <= 2; round++) {
      expect(await run(dataSourceId)).toMatchObject({ status: 'Succeeded', counts: { failed: 0 } });
      expect(listingsOf('shared')).toBe(1);
      expect(await shape(dataSourceId, 'a')).toMatchObject({ folders: [['shared', '/Dag/A/Shared']] });
      expect(await shape(dataSourceId, 'b')).toMatchObject({ folders: [], files: ['/Dag/B/b-file.txt'] });
      expect(await shape(dataSourceId, 'shared')).toEqual({
        folder: { name: 'Shared', path: '/Dag/A/Shared' },
        folders: [],
        files: ['/Dag/A/Shared/shared-file.txt'],
      });
    }
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 10_000; waited += 20) await sleep(20);
}
