import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem, HostileFolder, ListingOverride } from './hostile-document-system';

const folder = (id: string, fileIds: string[]): HostileFolder => ({
  id,
  name: id,
  files: fileIds.map((f) => ({ id: f, name: `${f}.txt`, content: { kind: 'bytes', body: Buffer.from(f) } })),
});
const FOLDERS = [
  folder('docs', ['d1', 'd2', 'd3', 'd4']),
  folder('sub', ['s1']), // listed inside docs: 1 of 5 documents, under the deletion guard's 30 %
  folder('paged', ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10', 'p11']),
];
const SUBFOLDER = { kind: 'folder', id: 'sub', name: 'Sub', parentId: 'docs' };

/** A folder's files as the document system lists them. */
const listed = (folderId: string, from = 0, to?: number) =>
  FOLDERS.find((f) => f.id === folderId)!
    .files.slice(from, to)
    .map((f) => ({ kind: 'file', id: f.id, name: f.name, parentId: folderId, version: '1' }));

/** The tree as it stands: docs holds its files and the folder sub. */
const wellBehaved: ListingOverride = (what) =>
  'folderId' in what && what.folderId === 'docs'
    ? { items: [...listed('docs'), SUBFOLDER], nextCursor: null }
    : undefined;

/**
 * Listing answers that are not what the contract says a listing is (a 200 without an `items` list, an item
 * the connector cannot read, a cursor given again) are failed listings: a run deletes nothing on them.
 */
describe('Odd folder listings', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem(FOLDERS).start();
    hostile.listings = wellBehaved;
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterEach(() => (hostile.listings = wellBehaved));
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });

  const documents = async (dataSourceId: string) =>
    Number(
      (await sut.db.query('SELECT count(*) AS n FROM connector.documents WHERE "dataSourceId" = $1', [dataSourceId]))[0]
        .n,
    );

  /** A data source selecting `folderId`, synced once over the well-behaved tree (`expected` documents). */
  async function synced(folderId: string, expected: number): Promise<string> {
    const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, [folderId]);
    expect(await syncToEnd(sut.app, caller, dataSourceId, 30_000)).toMatchObject({ status: 'Succeeded' });
    expect(await documents(dataSourceId)).toBe(expected);
    return dataSourceId;
  }

  /** Sub's listing answered `body` the first `times` times it is asked for (Infinity: always), then as it stands. */
  const subAnswers = (body: unknown, times: number): ListingOverride => {
    let answered = 0;
    return (what, cursor) =>
      'folderId' in what && what.folderId === 'sub' && answered++ < times ? body : wellBehaved(what, cursor);
  };

  const outcome = async (dataSourceId: string) => {
    const run = await syncToEnd(sut.app, caller, dataSourceId, 60_000);
    return { status: run.status, deleted: run.counts.deleted, docs: await documents(dataSourceId), error: run.error };
  };

  describe.each([
    ['an error object', '{"error":"internal_error"}'],
    ['null', 'null'],
    ['an array', '[]'],
    ['an object without items', '{"nextCursor":null}'],
  ])('a 200 listing answer that is %s', (_, body) => {
    it('is a failed call: retried, the run takes the answer that follows and deletes nothing', async () => {
      const dataSourceId = await synced('docs', 5);
      hostile.listings = subAnswers(body, 1);
      expect(await outcome(dataSourceId)).toEqual({ status: 'Succeeded', deleted: 0, docs: 5, error: null });
    });

    it('answers the folder picker 502, not an empty folder', async () => {
      const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, ['docs']);
      await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth).expect(200);
      hostile.listings = (what, cursor) =>
        'folderId' in what && what.folderId === 'docs' ? body : wellBehaved(what, cursor);
      const opened = await http()
        .get(`/v1/data-sources/${dataSourceId}/folders`)
        .query({ parentId: 'docs' })
        .set(caller.auth);
      expect({ status: opened.status, code: opened.body.code }).toEqual({
        status: 502,
        code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
      });
      hostile.listings = (what, cursor) => ('workgroups' in what ? body : wellBehaved(what, cursor));
      const workgroups = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth);
      expect({ status: workgroups.status, code: workgroups.body.code, notice: workgroups.body.notice }).toEqual({
        status: 502,
        code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
        notice: undefined,
      });
    });
  });

  it('fails the listing of a folder answered {"error":"internal_error"} (200) on every try: the run deletes nothing', async () => {
    const dataSourceId = await synced('docs', 5);
    hostile.listings = subAnswers({ error: 'internal_error' }, Infinity);
    expect(await outcome(dataSourceId)).toEqual({
      status: 'PartiallySucceeded',
      deleted: 0,
      docs: 5,
      error: '1 folder listing(s) failed; deletions were not applied',
    });
  });

  it.each([
    ['a kind other than "folder" or "file"', { kind: 'File', id: 's1', name: 's1.txt', parentId: 'sub' }],
    ['no kind', { id: 's1', name: 's1.txt', parentId: 'sub' }],
    ['no id', { kind: 'file', name: 's1.txt', parentId: 'sub' }],
  ])(
    'fails the listing of a page holding an item with %s: the known document it may be is not deleted',
    async (_, item) => {
      const dataSourceId = await synced('docs', 5);
      hostile.listings = subAnswers({ items: [item], nextCursor: null }, Infinity);
      expect(await outcome(dataSourceId)).toEqual({
        status: 'PartiallySucceeded',
        deleted: 0,
        docs: 5,
        error: '1 folder listing(s) failed; deletions were not applied',
      });
    },
  );

  it('fails the listing of a folder whose next cursor was given before in the run: nothing after it is deleted', async () => {
    const dataSourceId = await synced('paged', 11);
    let served = 0;
    // The cursor stays "c" while the pages behind it change: p1–p5, p6–p10, then p11.
    hostile.listings = (what, cursor) => {
      if (!('folderId' in what) || what.folderId !== 'paged') return wellBehaved(what, cursor);
      if (!cursor) return { items: listed('paged', 0, 5), nextCursor: 'c' };
      return ++served === 1
        ? { items: listed('paged', 5, 10), nextCursor: 'c' }
        : { items: listed('paged', 10), nextCursor: null };
    };
    expect(await outcome(dataSourceId)).toEqual({
      status: 'PartiallySucceeded',
      deleted: 0,
      docs: 11,
      error: '1 folder listing(s) failed; deletions were not applied',
    });
    expect(served).toBe(1); // the repeated cursor is not asked for again
  });
});
