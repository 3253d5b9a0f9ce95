import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { hostileConnections, hostileDataSource } from './support/hostile-connections';
import { HostileDocumentSystem } from './security/hostile-document-system';

const LISTING_MAX_ITEMS = 100;

type Listed = { workgroups: true } | { folderId: string };
type ShownFolder = { id: string; path: string; hasChildren: boolean };

const oneWorkgroup = { items: [{ id: 'w', name: 'Root', rootFolderId: 'root' }], nextCursor: null };
const empty = { items: [], nextCursor: null };

/** Answers a document system may give that no well-behaved one does; the picker still shows what it can. */
describe('The folder picker on odd document-system answers', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());
  const folders = (id: string, parentId?: string) =>
    http()
      .get(`/v1/data-sources/${id}/folders`)
      .query(parentId ? { parentId } : {})
      .set(caller.auth);
  /** A data source whose workgroups the picker has shown. */
  const shownDataSource = async () => {
    const id = await hostileDataSource(sut.app, connections, caller, hostile.url, ['root']);
    await folders(id).expect(200);
    return id;
  };

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem([{ id: 'root', name: 'Root', files: [] }]).start();
    sut = await startConnectorApp({ env: { LISTING_MAX_ITEMS }, overrides: [[ConnectionTokens, connections]] });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });

  it('shows a workgroup listed twice once', async () => {
    const id = await hostileDataSource(sut.app, connections, caller, hostile.url, ['root']);
    const twice = { id: 'w1', name: 'Root', rootFolderId: 'root' };
    hostile.listings = (what) => ('workgroups' in what ? { items: [twice, twice], nextCursor: null } : empty);
    const res = await folders(id);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 200, code: undefined });
    expect(res.body.items.map((f: ShownFolder) => f.id)).toEqual(['root']);
  });

  it('shows a subfolder listed twice on one page once', async () => {
    const twice = { kind: 'folder', id: 'x', name: 'X', parentId: 'root' };
    hostile.listings = (what) =>
      'workgroups' in what
        ? oneWorkgroup
        : what.folderId === 'root'
          ? { items: [twice, twice], nextCursor: null }
          : empty;
    const res = await folders(await shownDataSource(), 'root');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 200, code: undefined });
    expect(res.body.items.map((f: ShownFolder) => f.id)).toEqual(['x']);
  });

  describe("shows a folder's page when one of its subfolders cannot be looked into, that subfolder as one to open", () => {
    const withOdd = (odd: { id: string; name: string }) => (what: Listed) => {
      if ('workgroups' in what) return oneWorkgroup;
      if (what.folderId === 'root')
        return {
          items: [
            { kind: 'folder', id: 'plans', name: 'Plans', parentId: 'root' },
            { kind: 'folder', ...odd, parentId: 'root' },
          ],
          nextCursor: null,
        };
      if (what.folderId === 'plans') return empty;
      if (what.folderId === 'huge')
        return {
          items: Array.from({ length: LISTING_MAX_ITEMS + 1 }, (_, i) => ({
            kind: 'file',
            id: `f${i}`,
            name: `f${i}`,
          })),
          nextCursor: null,
        };
      return undefined; // 404 not_found: the folder is gone
    };

    it.each([
      ['deleted between the listing and the look (404)', { id: 'gone', name: 'Gone' }],
      ['with the id ".." (no URL can name it)', { id: '..', name: 'Dots' }],
      ['whose own listing is longer than LISTING_MAX_ITEMS (502)', { id: 'huge', name: 'Huge' }],
    ])('a subfolder %s', async (_, odd) => {
      hostile.listings = withOdd(odd);
      const res = await folders(await shownDataSource(), 'root');
      expect({ status: res.status, code: res.body.code, partial: res.body.partial }).toEqual({
        status: 200,
        code: undefined,
        partial: undefined, // not the request's bound: every folder was looked into
      });
      expect(res.body.items.map((f: ShownFolder) => [f.id, f.hasChildren])).toEqual([
        ['plans', false],
        [odd.id, true],
      ]);
    });
  });

  it('shows a folder listed among its own subfolders where it was first seen: opening it again and again does not grow its path', async () => {
    hostile.listings = (what) => {
      if ('workgroups' in what) return oneWorkgroup;
      if (what.folderId === 'root')
        return { items: [{ kind: 'folder', id: 'loop', name: 'Loop', parentId: 'root' }], nextCursor: null };
      return { items: [{ kind: 'folder', id: 'loop', name: 'Loop', parentId: 'loop' }], nextCursor: null };
    };
    const id = await shownDataSource();
    await folders(id, 'root').expect(200);
    for (let look = 0; look < 3; look++) expect((await folders(id, 'loop').expect(200)).body.items).toEqual([]);

    // Its recorded place is what a selection's marks and a sync's paths come from.
    const [row] = await sut.db.query(
      `SELECT path, "ancestorIds" FROM connector.picker_folders WHERE "dataSourceId" = $1 AND "folderId" = 'loop'`,
      [id],
    );
    expect(row).toEqual({ path: '/Root/Loop', ancestorIds: ['root'] });
  });

  it('opens and selects a folder whose id is 1,010 characters long (ids up to 1,024 are taken)', async () => {
    const long = 'L'.repeat(1010);
    hostile.listings = (what) => {
      if ('workgroups' in what) return oneWorkgroup;
      if (what.folderId === 'root')
        return { items: [{ kind: 'folder', id: long, name: 'Long', parentId: 'root' }], nextCursor: null };
      if (what.folderId === long)
        return { items: [{ kind: 'folder', id: 'inner', name: 'Inner', parentId: long }], nextCursor: null };
      return empty;
    };
    const id = await shownDataSource();
    expect((await folders(id, 'root')).body.items).toMatchObject([{ id: long, hasChildren: true }]);

    const opened = await folders(id, long);
    expect({ status: opened.status, code: opened.body.code }).toEqual({ status: 200, code: undefined });
    expect(opened.body.items.map((f: ShownFolder) => f.id)).toEqual(['inner']);

    const select = (include: string[]) =>
      http().put(`/v1/data-sources/${id}/selection`).set(caller.auth).send({ include, exclude: [] });
    await select([long]).expect(200);
    expect((await select(['L'.repeat(1025)]).expect(400)).body.code).toBe('VALIDATION_FAILED');
  });
});
