import Redis from 'ioredis';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem, HostileFile, ListingOverride } from './hostile-document-system';

const MiB = 1024 * 1024;
/** What no stored value or queued job may come near: each holds one file's metadata at most. */
const MOST_BYTES = 16 * 1024;

const file = (id: string, more: Partial<HostileFile> = {}): HostileFile => ({
  id,
  name: `${id}.txt`,
  content: { kind: 'bytes', body: Buffer.from(`text of ${id}`) },
  ...more,
});
// The first download of each file with a huge listed field is answered a stray 404: its batch waits ~1 s in Redis.
const FILES = [
  file('long-version', { strayNotFoundFirst: 1 }),
  file('long-sha256', { strayNotFoundFirst: 1 }),
  file('long-mime', { strayNotFoundFirst: 1 }),
  file('long-time', { strayNotFoundFirst: 1 }),
  file('long-content-type', { contentType: `text/${'x'.repeat(12 * 1024)}` }),
  file('huge-content-type', { contentType: `text/${'x'.repeat(100 * 1024)}` }),
];
/** The listing gives each file one field a megabyte long (and no mimeType to the two whose download names one). */
const HUGE: Record<string, Record<string, string>> = {
  'long-version': { version: 'v'.repeat(MiB) },
  'long-sha256': { sha256: 'a'.repeat(MiB), version: '1' },
  'long-mime': { mimeType: `text/${'p'.repeat(MiB)}`, version: '1' },
  'long-time': { modifiedAt: `2024-05-01T10:00:00Z${' '.repeat(MiB)}`, version: '1' },
  'long-content-type': { version: '1' },
  'huge-content-type': { version: '1' },
};
const listing: ListingOverride = (what) =>
  'folderId' in what
    ? {
        items: FILES.map((f) => ({ kind: 'file', id: f.id, name: f.name, parentId: what.folderId, ...HUGE[f.id] })),
        nextCursor: null,
      }
    : undefined;

/**
 * A hostile document system's free item fields (version, sha256, mimeType, modifiedAt) and a download's
 * Content-Type are taken only within sensible bounds: the files are ingested, and no column or queued job
 * holds what the listing sent.
 */
describe('Listed item fields of any length', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const connections = hostileConnections();

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem([{ id: 'docs', name: 'Docs', files: FILES }]).start();
    hostile.listings = listing;
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
    await redis.quit();
  });

  it('ingests the files with the over-long fields left out, fails only the download whose headers pass 16 KiB, and stores or queues none of it', async () => {
    const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, ['docs']);
    const queued = watchQueue(redis, String(sut.env.QUEUE_PREFIX));
    const run = await syncToEnd(sut.app, caller, dataSourceId, 60_000).finally(() => queued.stop());

    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { added: 5, failed: 1 } });

    const docs: Array<Record<string, string | null>> = await sut.db.query(
      `SELECT "externalId", "mimeType", version, "modifiedAt", "remoteSha256", octet_length(d::text) AS bytes
         FROM connector.documents d WHERE "dataSourceId" = $1 ORDER BY "externalId"`,
      [dataSourceId],
    );
    const byId = Object.fromEntries(docs.map((d) => [d.externalId, d]));
    expect(Object.keys(byId).sort()).toEqual(
      ['long-content-type', 'long-mime', 'long-sha256', 'long-time', 'long-version'].sort(),
    );
    expect(docs.filter((d) => Number(d.bytes) >= MOST_BYTES).map((d) => d.externalId)).toEqual([]);
    expect(byId['long-version']).toMatchObject({ version: null });
    expect(byId['long-sha256']).toMatchObject({ remoteSha256: null, version: '1' });
    expect(byId['long-mime']).toMatchObject({ mimeType: 'application/octet-stream' });
    expect(byId['long-time']).toMatchObject({ modifiedAt: null, version: '1' });
    expect(byId['long-content-type']).toMatchObject({ mimeType: 'application/octet-stream' });

    const [tasks] = await sut.db.query(
      `SELECT count(*)::int AS n, max(octet_length(payload::text))::int AS bytes
         FROM connector.sync_tasks WHERE "syncRunId" = $1 AND "jobName" = 'ingest-files'`,
      [run.id],
    );
    expect(tasks.n).toBeGreaterThan(0);
    expect(tasks.bytes).toBeLessThan(MOST_BYTES);
    // The watch saw the batches while they waited in Redis: none held more.
    expect(queued.ingestJobsSeen()).toBeGreaterThan(0);
    expect(queued.largestValue()).toBeLessThan(MOST_BYTES);

    // Node's HTTP client reads no answer whose headers pass 16 KiB: that file fails, saying why.
    const failed = await request(sut.app.getHttpServer())
      .get(`/v1/sync-runs/${run.id}/files?outcome=Failed`)
      .set(caller.auth)
      .expect(200);
    expect(failed.body.items).toEqual([
      expect.objectContaining({ externalId: 'huge-content-type', reason: expect.stringMatching(/headers.*16 KiB/) }),
    ]);
  });
});

/** Every value under the app's queue prefix in Redis, looked at every 100 ms: the largest, and how many ingest jobs were seen. */
function watchQueue(redis: Redis, prefix: string) {
  let largest = 0;
  const ingestJobs = new Set<string>();
  let stopped = false;
  const look = async () => {
    for (const key of await redis.keys(`${prefix}:*`)) {
      const type = await redis.type(key);
      if (type === 'hash') {
        for (const field of await redis.hkeys(key)) largest = Math.max(largest, await redis.hstrlen(key, field));
        if ((await redis.hget(key, 'name')) === 'ingest-files') ingestJobs.add(key);
      } else if (type === 'string') largest = Math.max(largest, await redis.strlen(key));
      else {
        const members =
          type === 'list'
            ? await redis.lrange(key, 0, -1)
            : type === 'zset'
              ? await redis.zrange(key, 0, -1)
              : type === 'set'
                ? await redis.smembers(key)
                : [];
        for (const member of members) largest = Math.max(largest, Buffer.byteLength(member));
      }
    }
  };
  const done = (async () => {
    while (!stopped) {
      await look().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: () => {
      stopped = true;
      return done;
    },
    largestValue: () => largest,
    ingestJobsSeen: () => ingestJobs.size,
  };
}
