import { randomBytes, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import request from 'supertest';
import { HttpPeer, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { ConnectorEnv } from '../../src/connector-env';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { connect, providerBody, registerClient, TEST_PUBLIC_BASE_URL } from '../support/oauth-flow';
import { hostileConnections } from '../support/hostile-connections';
import { SyncRunView, syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem } from './hostile-document-system';

const MAX_FILE_BYTES = 1000;

/** Every file under a directory, recursively (the blob store's files, staging included). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('A hostile document system', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem([
      {
        id: 'limits',
        name: 'Limits',
        files: [
          { id: 'small', name: 'small.txt', listedSize: 5, content: { kind: 'bytes', body: Buffer.from('hello') } },
          { id: 'big', name: 'big.bin', listedSize: 5000, content: { kind: 'bytes', body: Buffer.alloc(5000, 'b') } },
          { id: 'liar', name: 'liar.bin', listedSize: 10, content: { kind: 'unannounced', bytes: 50_000 } },
        ],
      },
      {
        id: 'sizes',
        name: 'Sizes',
        files: [
          { id: 'unsized', name: 'unsized.txt', content: { kind: 'bytes', body: Buffer.alloc(400, 'u') } },
          { id: 'understated', name: 'understated.bin', listedSize: 10, content: { kind: 'unannounced', bytes: 400 } },
          { id: 'unsized-too', name: 'unsized-too.txt', content: { kind: 'bytes', body: Buffer.alloc(400, 't') } },
        ],
      },
      {
        id: 'endless-unsized',
        name: 'Endless unsized',
        files: [
          { id: 'endless-unsized', name: 'endless.bin', content: { kind: 'paced', chunk: 100, bytes: Infinity } },
        ],
      },
      {
        id: 'no-identity',
        name: 'No identity',
        files: ['a', 'b', 'c'].map((id) => ({
          id: `no-identity-${id}`,
          name: `${id}.txt`,
          listedSize: 6, // sized, so the three share a batch
          version: null,
          strayNotFoundFirst: id === 'b' ? 1 : 0,
          content: { kind: 'bytes' as const, body: Buffer.from(`file ${id}`) },
        })),
      },
      {
        id: 'numeric',
        name: 'Numeric',
        files: ['123', '124'].map((id) => ({
          id,
          name: `${id}.txt`,
          content: { kind: 'bytes' as const, body: Buffer.from(`file ${id}`) },
        })),
      },
      {
        id: 'slow',
        name: 'Slow',
        files: [
          { id: 'fine', name: 'fine.txt', listedSize: 4, content: { kind: 'bytes', body: Buffer.from('fine') } },
          { id: 'endless', name: 'endless.txt', listedSize: 10, content: { kind: 'trickle', everyMs: 100 } },
        ],
      },
    ]).start();
    sut = await startConnectorApp({
      env: { MAX_FILE_BYTES, DOCUMENT_SYSTEM_DEADLINE_MS: 1500, DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND: 1000 },
      overrides: [[ConnectionTokens, connections]],
    });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });

  async function dataSource(folderId: string): Promise<string> {
    const credential = await http()
      .post('/v1/credentials')
      .set(caller.auth)
      .send({
        name: 'Hostile',
        type: 'DocumentSystem',
        instanceUrl: hostile.url,
        username: 'u',
        password: 'p',
        scope: 'Tenant',
      })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Hostile', credentialId: credential.body.id, connectionId: connections.connect(caller) })
      .expect(201);
    await http()
      .put(`/v1/data-sources/${ds.body.id}/selection`)
      .set(caller.auth)
      .send({ include: [folderId], exclude: [] })
      .expect(200);
    return ds.body.id;
  }

  const tree = async (dataSourceId: string, folderId: string) =>
    (await http().get(`/v1/data-sources/${dataSourceId}/tree`).query({ folderId }).set(caller.auth).expect(200)).body;

  it('lists a file over MAX_FILE_BYTES (by its listed size, or once its download passes it) as Skipped/TooLarge, stores none of it, and the run still succeeds', async () => {
    const dataSourceId = await dataSource('limits');
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000);
    expect(run).toMatchObject({ status: 'Succeeded', counts: { discovered: 3, added: 1, failed: 0, skipped: 2 } });

    const files: Array<{ documentId: string; name: string; status: string }> = (await tree(dataSourceId, 'limits'))
      .files;
    expect(files.map((f) => [f.name, f.status])).toEqual([
      ['big.bin', 'Skipped'],
      ['liar.bin', 'Skipped'],
      ['small.txt', 'Ingested'],
    ]);
    for (const file of files.filter((f) => f.status === 'Skipped')) {
      const doc = (await http().get(`/v1/documents/${file.documentId}`).set(caller.auth).expect(200)).body;
      expect(doc.extraction).toEqual({ status: 'Skipped', error: 'TooLarge' });
      await http().get(`/v1/documents/${file.documentId}/content`).set(caller.auth).expect(404);
    }
    // Only the small file's bytes are kept: no partial blob of the liar, nothing left in staging.
    expect(await filesUnder(String(sut.env.BLOB_DIR))).toHaveLength(1);

    // Looked at again by the next run (a raised limit would take them in), and skipped again.
    const again = await syncToEnd(sut.app, caller, dataSourceId, 30_000);
    expect(again).toMatchObject({
      status: 'Succeeded',
      counts: { discovered: 3, unchanged: 1, added: 0, updated: 0, skipped: 2 },
    });
    expect(await filesUnder(String(sut.env.BLOB_DIR))).toHaveLength(1);
  });

  it('stores no more than SYNC_MAX_BYTES of files listed without a size or smaller than they are: the rest are not stored and the run says which limit it reached', async () => {
    const dataSourceId = await dataSource('sizes');
    const blobsBefore = (await filesUnder(String(sut.env.BLOB_DIR))).length;
    const env = sut.app.get(ConnectorEnv);
    const maxBytes = env.SYNC_MAX_BYTES;
    env.SYNC_MAX_BYTES = 1000; // listed: 10 bytes; stored: 400 + 400, and 400 more would pass it
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000).finally(() => (env.SYNC_MAX_BYTES = maxBytes));
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 3, added: 2, failed: 1 } });
    expect(run.error).toMatch(/^RUN_LIMIT_REACHED: SYNC_MAX_BYTES \(1000 bytes\)/);
    // Which two fit depends on the order the batches saved them in; the third is not stored, and its bytes are
    // let go of.
    const stored: Array<{ name: string; status: string }> = (await tree(dataSourceId, 'sizes')).files;
    expect(stored.map((f) => f.status)).toEqual(['Ingested', 'Ingested']);
    expect(await filesUnder(String(sut.env.BLOB_DIR))).toHaveLength(blobsBefore + 2);
    const failed = await http().get(`/v1/sync-runs/${run.id}/files`).query({ outcome: 'Failed' }).set(caller.auth);
    const names = ['understated.bin', 'unsized-too.txt', 'unsized.txt'];
    expect(failed.body.items).toEqual([
      expect.objectContaining({
        name: names.find((name) => !stored.some((f) => f.name === name)),
        reason: 'RUN_LIMIT_REACHED: SYNC_MAX_BYTES (1000 bytes): not stored',
      }),
    ]);
  });

  it('stops downloading a file without a size where the run reaches SYNC_MAX_BYTES, not at MAX_FILE_BYTES', async () => {
    const dataSourceId = await dataSource('endless-unsized');
    const env = sut.app.get(ConnectorEnv);
    const maxBytes = env.SYNC_MAX_BYTES;
    env.SYNC_MAX_BYTES = 300; // MAX_FILE_BYTES is 1000: without the run's bound it would be Skipped as too large
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000).finally(() => (env.SYNC_MAX_BYTES = maxBytes));
    expect(run).toMatchObject({
      status: 'PartiallySucceeded',
      counts: { discovered: 1, added: 0, skipped: 0, failed: 1 },
    });
    expect(run.error).toMatch(/^RUN_LIMIT_REACHED: SYNC_MAX_BYTES \(300 bytes\)/);
    const failed = await http().get(`/v1/sync-runs/${run.id}/files`).set(caller.auth);
    expect(failed.body.items).toEqual([
      expect.objectContaining({
        name: 'endless.bin',
        outcome: 'Failed',
        reason: 'RUN_LIMIT_REACHED: SYNC_MAX_BYTES (300 bytes): not stored',
      }),
    ]);
  });

  it('downloads and counts each file of a retried batch once, though the listing gives no version, time or checksum', async () => {
    const dataSourceId = await dataSource('no-identity');
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000);
    expect(run).toMatchObject({
      status: 'Succeeded',
      counts: { discovered: 3, added: 3, updated: 0, failed: 0, skipped: 0 },
      bytesDownloaded: 18,
    });
    // The retry asked only for the file that had failed (a proxy's 404 the first time: no answer about the file).
    expect(hostile.requests.filter((path) => path.startsWith('/api/v1/files/no-identity-'))).toEqual(
      ['a', 'b', 'c', 'b'].map((id) => `/api/v1/files/no-identity-${id}/content`),
    );
    const ledger = await http().get(`/v1/sync-runs/${run.id}/files`).set(caller.auth).expect(200);
    expect(ledger.body.items.map((f: { name: string; outcome: string }) => [f.name, f.outcome]).sort()).toEqual([
      ['a.txt', 'Added'],
      ['b.txt', 'Added'],
      ['c.txt', 'Added'],
    ]);
  });

  it('takes numeric ids and versions as the strings they stand for; the run ends', async () => {
    const dataSourceId = await dataSource('numeric');
    hostile.listings = (what) => {
      if (!('folderId' in what)) return undefined;
      if (what.folderId === '555') return { items: [{ kind: 'file', id: 124, name: 124, parentId: 555, version: 1 }] };
      if (what.folderId !== 'numeric') return undefined;
      return {
        items: [
          { kind: 'file', id: 123, name: '123.txt', parentId: 'numeric', size: 8, version: 7, modifiedAt: 1717000000 },
          { kind: 'folder', id: 555, name: 'Sub', parentId: 'numeric' },
        ],
        nextCursor: null,
      };
    };
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000).finally(() => (hostile.listings = undefined));
    expect(run).toMatchObject({ status: 'Succeeded', counts: { discovered: 2, added: 2, failed: 0 } });
    expect((await tree(dataSourceId, 'numeric')).files.map((f: { name: string }) => f.name)).toEqual(['123.txt']);
    expect((await tree(dataSourceId, '555')).files.map((f: { name: string }) => f.name)).toEqual(['124']);
  });

  it('takes a file or folder listed twice on one page once; the run ends with each counted once', async () => {
    const dataSourceId = await dataSource('numeric');
    const file = (id: string, size?: number) => ({ kind: 'file', id, name: `${id}.txt`, parentId: 'numeric', size });
    const folder = { kind: 'folder', id: '555', name: 'Sub', parentId: 'numeric' };
    hostile.listings = (what) => {
      if (!('folderId' in what)) return undefined;
      if (what.folderId === '555') return { items: [], nextCursor: null };
      if (what.folderId !== 'numeric') return undefined;
      // 123 without a size (a batch of its own, twice); 124 with one (twice in one batch).
      return { items: [file('123'), folder, file('124', 8), file('123'), folder, file('124', 8)], nextCursor: null };
    };
    const run = await syncToEnd(sut.app, caller, dataSourceId, 20_000).finally(() => (hostile.listings = undefined));
    expect(run).toMatchObject({ status: 'Succeeded', counts: { discovered: 2, added: 2, failed: 0 } });
    expect((await tree(dataSourceId, 'numeric')).files.map((f: { name: string }) => f.name)).toEqual([
      '123.txt',
      '124.txt',
    ]);
  });

  it('stores names holding U+0000 or half of a UTF-16 pair with U+FFFD in their place; the page is not lost', async () => {
    const dataSourceId = await dataSource('numeric');
    hostile.listings = (what) =>
      'folderId' in what && what.folderId.startsWith('sub')
        ? { items: [], nextCursor: null }
        : 'folderId' in what && what.folderId === 'numeric'
          ? {
              items: [
                { kind: 'file', id: '123', name: 'a\u0000b.txt', parentId: 'numeric' },
                { kind: 'file', id: '124', name: '\ud800.txt', parentId: 'numeric', sha256: 'x\u0000' },
                { kind: 'folder', id: 'sub\u0000', name: 'Sub', parentId: 'numeric' },
              ],
              nextCursor: null,
            }
          : undefined;
    const run = await syncToEnd(sut.app, caller, dataSourceId, 20_000).finally(() => (hostile.listings = undefined));
    expect(run).toMatchObject({ status: 'Succeeded', counts: { discovered: 2, added: 2, failed: 0 } });
    const names = (await tree(dataSourceId, 'numeric')).files.map((f: { name: string }) => f.name);
    expect(names.sort()).toEqual(['a\ufffdb.txt', '\ufffd.txt'].sort());
  });

  it('leaves out a file or folder whose path would pass the longest path kept; its siblings are stored and the run names the limit', async () => {
    const dataSourceId = await dataSource('numeric');
    const long = randomBytes(1500).toString('hex'); // incompressible, as an index entry
    let listed = 0;
    hostile.listings = (what) => {
      if (!('folderId' in what)) return undefined;
      if (what.folderId === 'deep') return { items: [], nextCursor: null };
      if (what.folderId !== 'numeric') return undefined;
      listed++;
      return {
        items: [
          { kind: 'file', id: '123', name: '123.txt', parentId: 'numeric', size: 8 },
          { kind: 'file', id: 'fine', name: `${long}.txt`, parentId: 'numeric', size: 4 }, // downloadable
          { kind: 'file', id: '124', name: '124.txt', parentId: 'numeric', size: 8 },
          { kind: 'folder', id: 'deep', name: long, parentId: 'numeric' },
        ],
        nextCursor: null,
      };
    };
    const run = await syncToEnd(sut.app, caller, dataSourceId, 20_000).finally(() => (hostile.listings = undefined));
    expect(listed).toBe(1);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 2, added: 2, failed: 0 } });
    expect(run.error).toBe(
      'RUN_LIMIT_REACHED: path length (2000 bytes): the run left out what passed it, kept the rest and deleted nothing',
    );
    const names = (await tree(dataSourceId, 'numeric')).files.map((f: { name: string }) => f.name);
    expect(names.sort()).toEqual(['123.txt', '124.txt']);
  });

  it('ends a run whose folder answers empty pages with a new cursor forever, at SYNC_MAX_PAGES', async () => {
    const dataSourceId = await dataSource('numeric');
    let pages = 0;
    hostile.listings = (what) =>
      'folderId' in what && what.folderId === 'numeric' ? { items: [], nextCursor: `page-${++pages}` } : undefined;
    const env = sut.app.get(ConnectorEnv);
    const maxPages = env.SYNC_MAX_PAGES;
    env.SYNC_MAX_PAGES = 25;
    const run = await syncToEnd(sut.app, caller, dataSourceId, 20_000).finally(() => {
      hostile.listings = undefined;
      env.SYNC_MAX_PAGES = maxPages;
    });
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 0 } });
    expect(run.error).toMatch(/^RUN_LIMIT_REACHED: SYNC_MAX_PAGES \(25 listing pages\)/);
    expect(pages).toBeLessThanOrEqual(26);
  });

  it('serves a file whose listed mimeType no header can carry, with a Content-Type that can be sent', async () => {
    const dataSourceId = await dataSource('numeric');
    hostile.listings = (what) =>
      'folderId' in what && what.folderId === 'numeric'
        ? {
            items: [
              { kind: 'file', id: '123', name: '123.txt', parentId: 'numeric', mimeType: 'text/plain\r\nX-Evil: 1' },
              { kind: 'file', id: '124', name: '124.txt', parentId: 'numeric', mimeType: 'application/文档' },
            ],
            nextCursor: null,
          }
        : undefined;
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000).finally(() => (hostile.listings = undefined));
    expect(run).toMatchObject({ status: 'Succeeded', counts: { added: 2 } });
    const files: Array<{ documentId: string }> = (await tree(dataSourceId, 'numeric')).files;
    // One stored before listings were read so: its type is sent as bytes of no known type.
    await sut.db.query(`UPDATE connector.documents SET "mimeType" = 'text/plain\r\nX-Evil: 1' WHERE id = $1`, [
      files[0].documentId,
    ]);
    for (const file of files) {
      const res = await http().get(`/v1/documents/${file.documentId}/content`).set(caller.auth).expect(200);
      expect(res.headers['content-type']).toBe('application/octet-stream');
      expect(res.headers['x-evil']).toBeUndefined();
    }
  });

  it('keeps the documents of a folder whose listing another server answers 404 (HTML): a failed listing, not a vanished folder', async () => {
    const dataSourceId = await dataSource('numeric');
    expect(await syncToEnd(sut.app, caller, dataSourceId, 30_000)).toMatchObject({ status: 'Succeeded' });
    const documents = async () =>
      Number(
        (
          await sut.db.query('SELECT count(*) AS n FROM connector.documents WHERE "dataSourceId" = $1', [dataSourceId])
        )[0].n,
      );
    const before = await documents();
    expect(before).toBeGreaterThan(0);
    hostile.strayNotFoundListings.add('numeric');
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000).finally(() =>
      hostile.strayNotFoundListings.clear(),
    );
    expect({ status: run.status, deleted: run.counts.deleted }).toEqual({ status: 'Failed', deleted: 0 });
    expect(await documents()).toBe(before);
  });

  it('fails a listing page whose nextCursor is over 4,096 characters as a failed listing; the run ends', async () => {
    const dataSourceId = await dataSource('numeric');
    hostile.listings = (what, cursor) =>
      'folderId' in what && what.folderId === 'numeric' && !cursor
        ? { items: [{ kind: 'file', id: '123', name: '123.txt', parentId: 'numeric' }], nextCursor: 'c'.repeat(5000) }
        : undefined;
    const run = await syncToEnd(sut.app, caller, dataSourceId, 30_000).finally(() => (hostile.listings = undefined));
    expect(run).toMatchObject({ status: 'Failed', counts: { added: 0 } });
    expect(run.error).toMatch(/folder listing\(s\) failed/);
  });

  it('ends a run whose file trickles forever: that file fails, the others are ingested', async () => {
    const dataSourceId = await dataSource('slow');
    const started = Date.now();
    const run: SyncRunView = await syncToEnd(sut.app, caller, dataSourceId, 50_000);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 2, added: 1, failed: 1 } });
    expect(Date.now() - started).toBeLessThan(50_000);
    expect((await tree(dataSourceId, 'slow')).files.map((f: { name: string }) => f.name)).toEqual(['fine.txt']);
  }, 60_000);

  it('fails a 100 MB listing answer cleanly and quickly; the API stays up', async () => {
    const dataSourceId = await dataSource('limits');
    // An API process whose calls may take 8 s, not this file's 1.5 s: the answer must end at its size bound
    // (16 MiB), not at a deadline that a loaded machine reaches first; read whole, 100 MB takes well under 8 s.
    const api = await startConnectorApp({
      env: {
        DATABASE_URL: sut.env.DATABASE_URL,
        QUEUE_PREFIX: sut.env.QUEUE_PREFIX,
        DOCUMENT_SYSTEM_DEADLINE_MS: 8000,
      },
      role: 'api',
      overrides: [[ConnectionTokens, connections]],
    });
    const apiHttp = () => request(api.app.getHttpServer());
    hostile.workgroupsPadding = 100 * 1024 * 1024;
    try {
      const started = Date.now();
      const res = await apiHttp().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        code: 'DOCUMENT_SYSTEM_ANSWER_TOO_LARGE',
        message: expect.stringContaining('16 MiB'),
      });
      hostile.workgroupsPadding = 0;
      await apiHttp().get('/health/live').expect(200);
      expect(
        (await apiHttp().get(`/v1/data-sources/${dataSourceId}/folders`).set(caller.auth).expect(200)).body.items,
      ).toHaveLength(6);
    } finally {
      hostile.workgroupsPadding = 0;
      await api.close();
    }
  });

  it('keeps the API paths it calls under an instanceUrl ending in "?" (no other path reachable)', async () => {
    const credential = await http()
      .post('/v1/credentials')
      .set(caller.auth)
      .send({
        name: 'Odd',
        type: 'DocumentSystem',
        instanceUrl: hostile.url,
        username: 'u',
        password: 'p',
        scope: 'Tenant',
      })
      .expect(201);
    // As if saved before save-time checks existed: the call itself must not let the URL choose the path.
    await sut.db.query(`UPDATE connector.credentials SET "instanceUrl" = $2 WHERE id = $1`, [
      credential.body.id,
      `${hostile.url}/api/v1/files/small/content?`,
    ]);
    const before = hostile.requests.length;
    const res = await http()
      .post(`/v1/credentials/${credential.body.id}/validate`)
      .set(caller.auth)
      .send({ connectionId: connections.connect(caller) });
    expect(res.status).toBe(422);
    const paths = hostile.requests.slice(before);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toBe('/api/v1/files/small/content/api/v1/session');
  });

  it('names no socket code or address when the document system stops answering mid-session', async () => {
    const gone = await new HostileDocumentSystem([{ id: 'g', name: 'Gone', files: [] }]).start();
    const credential = await http()
      .post('/v1/credentials')
      .set(caller.auth)
      .send({
        name: 'Gone',
        type: 'DocumentSystem',
        instanceUrl: gone.url,
        username: 'u',
        password: 'p',
        scope: 'Tenant',
      })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Gone', credentialId: credential.body.id, connectionId: connections.connect(caller) })
      .expect(201);
    await http().get(`/v1/data-sources/${ds.body.id}/folders`).set(caller.auth).expect(200); // its session is open now
    await gone.stop();
    const res = await http().get(`/v1/data-sources/${ds.body.id}/folders`).set(caller.auth);
    expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
      status: 502,
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
      message: 'The document system did not answer: the connection failed',
    });
  });
});

describe('Token refresh on every document-system path', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, OAUTH_HTTP_TIMEOUT_MS: 1500 } });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut.close();
    await sim.close();
  });

  /** A provider over a fresh simulator client, a connection of `user`, and a data source with a selection. */
  async function connected() {
    const clientId = `client-${randomUUID()}`;
    const secret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [secret] });
    const provider = (
      await http()
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(providerBody(sim, { clientId, clientSecret: secret }))
        .expect(201)
    ).body;
    const connection = await connect(sut, user, provider.id);
    const credential = (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body;
    const ds = (
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(user.auth)
        .send({ name: 'Docs', credentialId: credential.id, connectionId: connection.id })
        .expect(201)
    ).body;
    await http()
      .put(`/v1/data-sources/${ds.id}/selection`)
      .set(user.auth)
      .send({ include: [await sim.folderId('/Architecture')], exclude: [] })
      .expect(200);
    return {
      clientId,
      secret,
      providerId: provider.id as string,
      connectionId: connection.id,
      credentialId: credential.id as string,
      dataSourceId: ds.id as string,
    };
  }

  /** The access token has expired by the clock (no 401 from the document system needed to notice). */
  const expireByTime = (connectionId: string) =>
    sut.db.query(`UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`, [
      connectionId,
    ]);
  /** The provider's token endpoint moved to `url` (as only the database may move it), and the access token expired. */
  const refreshAt = async (c: { providerId: string; connectionId: string }, url: string) => {
    await sut.db.query(`UPDATE connector.oauth_providers SET "tokenEndpoint" = $2 WHERE id = $1`, [c.providerId, url]);
    await expireByTime(c.connectionId);
  };
  const connectionStatus = async (id: string) =>
    (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body.find((c: { id: string }) => c.id === id)
      ?.status;
  const ingestionStatus = async (id: string) =>
    (await http().get(`/v1/data-sources/${id}`).set(user.auth).expect(200)).body.ingestionStatus;

  it('picker: an expired token whose refresh is refused answers 409 REAUTH_REQUIRED and marks connection and data source NeedsReauth', async () => {
    const c = await connected();
    await sim.admin.post('/oauth/revoke-refresh-tokens');
    await expireByTime(c.connectionId);
    const res = await http().get(`/v1/data-sources/${c.dataSourceId}/folders`).set(user.auth);
    expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
      status: 409,
      code: 'REAUTH_REQUIRED',
      message: 'Re-authenticate',
    });
    expect(await connectionStatus(c.connectionId)).toBe('NeedsReauth');
    expect(await ingestionStatus(c.dataSourceId)).toBe('NeedsReauth');
  });

  it('validate: an expired token whose refresh is refused answers 409 REAUTH_REQUIRED', async () => {
    const c = await connected();
    await sim.admin.post('/oauth/revoke-refresh-tokens');
    await expireByTime(c.connectionId);
    const res = await http()
      .post(`/v1/credentials/${c.credentialId}/validate`)
      .set(user.auth)
      .send({ connectionId: c.connectionId });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'REAUTH_REQUIRED' });
    expect(await connectionStatus(c.connectionId)).toBe('NeedsReauth');
  });

  it('sync: an expired token whose refresh is refused ends the run at once with the data source NeedsReauth', async () => {
    const c = await connected();
    await sim.admin.post('/oauth/revoke-refresh-tokens');
    await expireByTime(c.connectionId);
    const started = Date.now();
    const run = await syncToEnd(sut.app, user, c.dataSourceId, 30_000);
    expect(run).toMatchObject({ status: 'Failed', error: expect.stringContaining('re-authenticate') });
    expect(Date.now() - started).toBeLessThan(5_000); // no retries of a step that cannot succeed
    expect(await ingestionStatus(c.dataSourceId)).toBe('NeedsReauth');
    expect(await connectionStatus(c.connectionId)).toBe('NeedsReauth');
  });

  it('picker: after a secret rotation the provider does not know yet, refreshes with the issuing secret (200)', async () => {
    const c = await connected();
    const rotated = await http()
      .put(`/v2/OAuth/providers/${c.providerId}`)
      .set(admin.auth)
      .send(providerBody(sim, { clientId: c.clientId, clientSecret: `unknown-${randomUUID()}` }))
      .expect(200);
    expect(rotated.body.secretVersion).toBe(2);
    await expireByTime(c.connectionId);
    const refreshesBefore = (await sim.admin.get('/oauth/stats')).data.tokenCalls.refresh_token ?? 0;
    await http().get(`/v1/data-sources/${c.dataSourceId}/folders`).set(user.auth).expect(200);
    // Refused with the current secret, then accepted with the one the connection was issued under.
    expect((await sim.admin.get('/oauth/stats')).data.tokenCalls.refresh_token).toBe(refreshesBefore + 2);
    const connection = (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body.find(
      (x: { id: string }) => x.id === c.connectionId,
    );
    expect(connection).toMatchObject({ status: 'Active', secretVersion: 1 });
  });

  it('takes a refresh answer with an expires_in past any date and U+0000 in its scope: the picker answers 200', async () => {
    const c = await connected();
    // The simulator's own answer, with the fields a careless provider might send.
    const odd = await new HttpPeer(async (req, res) => {
      const answer = await fetch(`${sim.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': String(req.headers['content-type']),
          authorization: req.headers.authorization ?? '',
        },
        body: req.body,
      });
      const tokens = { ...((await answer.json()) as object), expires_in: 1e13, scope: 'openid\u0000 offline_access' };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(tokens));
    }).start();
    try {
      await refreshAt(c, `${odd.url}/oauth/token`);
      await http().get(`/v1/data-sources/${c.dataSourceId}/folders`).set(user.auth).expect(200);
      expect(odd.received).toHaveLength(1);
      expect(await connectionStatus(c.connectionId)).toBe('Active');
    } finally {
      await odd.stop();
    }
  });

  it('takes a refused refresh whose error and description hold U+0000 and 60 KB: 409 REAUTH_REQUIRED, the reason kept short', async () => {
    const c = await connected();
    const refusing = await new HttpPeer((_req, res) => {
      const answer = { error: 'invalid_grant\u0000', error_description: `gone\u0000${'x'.repeat(60_000)}` };
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }).start();
    try {
      await refreshAt(c, `${refusing.url}/oauth/token`);
      const res = await http().get(`/v1/data-sources/${c.dataSourceId}/folders`).set(user.auth);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'REAUTH_REQUIRED' });
      expect(await connectionStatus(c.connectionId)).toBe('NeedsReauth');
      const connection = (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body.find(
        (x: { id: string }) => x.id === c.connectionId,
      );
      expect(JSON.stringify(connection).length).toBeLessThan(2_000);
      expect(JSON.stringify(res.body).length).toBeLessThan(2_000);
    } finally {
      await refusing.stop();
    }
  });

  it('ends a refresh at a token endpoint that trickles forever within OAUTH_HTTP_TIMEOUT_MS, naming no socket code', async () => {
    const c = await connected();
    const trickler = await new HttpPeer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{');
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    }).start();
    try {
      await refreshAt(c, `${trickler.url}/oauth/token`);
      const started = Date.now();
      const res = await http().get(`/v1/data-sources/${c.dataSourceId}/folders`).set(user.auth);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 502, code: 'DOCUMENT_SYSTEM_UNAVAILABLE' });
      expect(res.body.message).toContain('within 1.5 s');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONN|ETIMEDOUT|127\.0\.0\.1|socket/i);
      expect(await connectionStatus(c.connectionId)).toBe('Active'); // a provider that is down is not a refused refresh
    } finally {
      await trickler.stop();
    }
  });
});
