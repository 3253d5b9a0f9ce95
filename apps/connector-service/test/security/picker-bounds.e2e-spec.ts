import request from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem, HostileFile } from './hostile-document-system';

const LISTING_MAX_ITEMS = 100;

const folders = (prefix: string, n: number, parentId: string) =>
  Array.from({ length: n }, (_, i) => ({ kind: 'folder', id: `${prefix}${i}`, name: `${prefix}${i}`, parentId }));
const files = (prefix: string, n: number): HostileFile[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    name: `${prefix}${i}.txt`,
    listedSize: 2,
    content: { kind: 'bytes', body: Buffer.from('hi') },
  }));

/** CONTRACT.md, "Fair share and limits": listing pages are bounded, and so is one folder-picker request. */
describe('Bounded work per document system', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem([
      { id: 'long', name: 'Long', files: files('l', LISTING_MAX_ITEMS + 1) },
      { id: 'fine', name: 'Fine', files: files('f', 1) },
    ]).start();
    sut = await startConnectorApp({ env: { LISTING_MAX_ITEMS }, overrides: [[ConnectionTokens, connections]] });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });
  afterEach(() => (hostile.listings = undefined));

  const dataSource = (include: string[]) =>
    hostileDataSource(sut.app, connections, caller, hostile.url, include, `p-${Math.random()}`);

  it('picker: a page longer than LISTING_MAX_ITEMS fails that call with 502 DOCUMENT_SYSTEM_LISTING_TOO_LONG', async () => {
    const dataSourceId = await dataSource(['fine']);
    let workgroups = LISTING_MAX_ITEMS + 1;
    hostile.listings = (what) =>
      'workgroups' in what
        ? {
            items: Array.from({ length: workgroups }, (_, i) => ({
              id: `w${i}`,
              name: `W${i}`,
              rootFolderId: `r${i}`,
            })),
            nextCursor: null,
          }
        : { items: [], nextCursor: null };
    const res = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth);
    expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
      status: 502,
      code: 'DOCUMENT_SYSTEM_LISTING_TOO_LONG',
      message: `The document system's listing page holds 101 items, more than LISTING_MAX_ITEMS (100)`,
    });
    workgroups = LISTING_MAX_ITEMS;
    const ok = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth).expect(200);
    expect(ok.body.items).toHaveLength(LISTING_MAX_ITEMS);
  });

  it('picker: a page of more JSON values than a parser thread has heap for (16 MiB of empty items) is refused unparsed: 502, never 500', async () => {
    const dataSourceId = await dataSource(['fine']);
    const items = 5_000_000; // about 15 MB of "{}," and far more heap than a parser thread has
    hostile.listings = (what) =>
      'workgroups' in what
        ? `{"items":[${'{},'.repeat(items - 1)}{}],"nextCursor":null}`
        : { items: [], nextCursor: null };
    const res = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth);
    expect(res.status).toBe(502);
    // Counted before the parse (MAX_ANSWER_VALUES), so never read far enough to count its items.
    expect(res.body.code).toBe('DOCUMENT_SYSTEM_UNAVAILABLE');
  }, 60_000);

  it('sync: a folder page longer than LISTING_MAX_ITEMS fails that listing; the run records it and goes on', async () => {
    const dataSourceId = await dataSource(['long', 'fine']);
    const run = await syncToEnd(sut.app, caller, dataSourceId, 60_000);
    expect(run).toMatchObject({
      status: 'PartiallySucceeded',
      counts: { discovered: 1, added: 1 },
      error: '1 folder listing(s) failed; deletions were not applied',
    });
  }, 70_000);

  it('picker: one request makes at most 50 document-system calls and answers with what it has seen', async () => {
    const dataSourceId = await dataSource(['fine']);
    hostile.listings = (what, cursor) => {
      if ('workgroups' in what) return { items: [{ id: 'w', name: 'Wide', rootFolderId: 'wide' }], nextCursor: null };
      if (what.folderId === 'wide') return { items: folders('s', 90, 'wide'), nextCursor: null };
      // Each subfolder: two pages of files, no subfolders.
      return {
        items: [{ kind: 'file', id: `${what.folderId}-${cursor}`, name: 'x.txt', parentId: what.folderId }],
        nextCursor: cursor ? null : 'p2',
      };
    };
    await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth).expect(200);
    const before = hostile.requests.length;
    const res = await http()
      .get(`/v1/data-sources/${dataSourceId}/folders`)
      .query({ parentId: 'wide' })
      .set(caller.auth);
    expect(res.status).toBe(200);
    expect(hostile.requests.length - before).toBeLessThanOrEqual(50);
    expect(res.body).toMatchObject({ partial: true, notice: expect.stringContaining('too slowly'), nextCursor: null });
    const shown: Array<{ hasChildren: boolean }> = res.body.items;
    expect(shown).toHaveLength(90); // every folder of the page, those not looked into as openable
    expect(shown.filter((f) => !f.hasChildren).length).toBeGreaterThan(10);
    expect(shown.filter((f) => f.hasChildren).length).toBeGreaterThan(10);
  });

  it('picker: one request answers within 10 s with what it has seen, however slowly the document system answers', async () => {
    const dataSourceId = await dataSource(['fine']);
    hostile.listings = async (what) => {
      if ('workgroups' in what) return { items: [{ id: 'w', name: 'Slow', rootFolderId: 'slow' }], nextCursor: null };
      if (what.folderId === 'slow') return { items: folders('t', 40, 'slow'), nextCursor: null };
      await sleep(2500);
      return { items: [], nextCursor: null };
    };
    await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth).expect(200);
    const before = hostile.requests.length;
    const started = Date.now();
    const res = await http()
      .get(`/v1/data-sources/${dataSourceId}/folders`)
      .query({ parentId: 'slow' })
      .set(caller.auth);
    const took = Date.now() - started;
    expect(res.status).toBe(200);
    expect(took).toBeLessThan(13_000); // PICKER_MAX_SECONDS (10), and room for a loaded machine
    expect(hostile.requests.length - before).toBeLessThanOrEqual(50);
    expect(res.body).toMatchObject({ partial: true });
    expect(res.body.items).toHaveLength(40);
    expect(res.body.items.filter((f: { hasChildren: boolean }) => !f.hasChildren).length).toBeGreaterThanOrEqual(8);
    await http().get('/health/live').expect(200);
  }, 30_000);
});
