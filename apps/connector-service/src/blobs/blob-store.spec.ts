import { spawnSync } from 'node:child_process';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import fs = require('node:fs');
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';
import { S3BlobStore } from './s3-blob-store';

interface StoreUnderTest {
  sut: BlobStore;
  /** Whatever temporary objects or files the store left behind. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

async function fsStore(): Promise<StoreUnderTest> {
  const root = await mkdtemp(join(tmpdir(), 'blobs-'));
  return {
    sut: new FsBlobStore(root),
    leftovers: () => readdir(join(root, 'tmp')),
    close: () => rm(root, { recursive: true, force: true }),
  };
}

/** A real S3 API (s3rver) on loopback. */
async function s3Store(): Promise<StoreUnderTest> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: 'blobs', configs: [] }],
  });
  const { port } = await server.run();
  const sut = new S3BlobStore({
    bucket: 'blobs',
    prefix: 'connector/',
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestTimeoutMs: 10_000,
    stagingDir: join(directory, 'staging'),
  });
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    sut,
    leftovers: async () => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: 'blobs' }));
      const stray = (listed.Contents ?? [])
        .map((object) => object.Key!)
        .filter((key) => !/^connector\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(key));
      return [...stray, ...(await readdir(join(directory, 'staging')))];
    },
    close: async () => {
      sut.close();
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The disk opens files `delayMs` late; `opened()` settles once every open so far has happened. */
function slowDiskOpens(delayMs: number) {
  const open = fs.open;
  const pending: Array<Promise<void>> = [];
  const spy = jest.spyOn(fs, 'open').mockImplementation(((...args: unknown[]) => {
    const callback = args.pop() as (...results: unknown[]) => void;
    pending.push(
      new Promise((done) =>
        setTimeout(
          () =>
            (open as (...a: unknown[]) => void)(...args, (...results: unknown[]) => {
              callback(...results);
              done();
            }),
          delayMs,
        ),
      ),
    );
  }) as typeof fs.open);
  return { opened: () => Promise.all(pending), restore: () => spy.mockRestore() };
}

describe('S3BlobStore on Node 20', () => {
  it('keeps the AWS SDK from warning that its releases after January 2027 need Node 22', () => {
    // In a process of its own: the SDK warns once per process, on the real process Jest does not show here.
    const script = `
      const { S3BlobStore } = require('./apps/connector-service/src/blobs/s3-blob-store');
      const store = new S3BlobStore({ bucket: 'b', prefix: '', endpoint: 'http://127.0.0.1:9', region: 'us-east-1',
        forcePathStyle: true, credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, requestTimeoutMs: 2000,
        stagingDir: require('node:os').tmpdir() });
      store.exists('0'.repeat(64)).catch(() => undefined);`;
    const child = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', './scripts/register-paths.js', '-e', script],
      { cwd: resolve(__dirname, '../../../..'), encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.status).toBe(0);
    expect(child.stderr).not.toContain('NodeVersionSupportWarning');
  });
});

describe(FsBlobStore.name, () => {
  it('reads an opened blob to its end even when it is deleted meanwhile (a download while a sync collects it)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'blobs-'));
    const sut = new FsBlobStore(root);
    try {
      const stored = await sut.put(Readable.from(['A-501 wall sections']));
      const opened = (await sut.open(stored.sha256))!;
      await sut.delete(stored.sha256);
      expect(Buffer.concat(await opened.toArray()).toString()).toBe('A-501 wall sections');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('stores again after its directories were removed while it ran (the blob directory cleared)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'blobs-'));
    const sut = new FsBlobStore(root);
    try {
      const first = await sut.put(Readable.from(['A-501']));
      await rm(root, { recursive: true });
      expect(await sut.put(Readable.from(['A-501']))).toEqual(first);
      expect((await sut.read(first.sha256)).toString()).toBe('A-501');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe.each([
  ['FsBlobStore', fsStore],
  ['S3BlobStore', s3Store],
])('%s', (_name, make) => {
  let store: StoreUnderTest;
  let sut: BlobStore;

  beforeEach(async () => {
    store = await make();
    sut = store.sut;
  });
  afterEach(() => store.close());

  it('stores content under its SHA-256 and reads it back, whole and streamed', async () => {
    const content = Buffer.from('A-501 wall sections');
    const stored = await sut.put(Readable.from([content]));
    expect(stored).toEqual({ sha256: createHash('sha256').update(content).digest('hex'), size: content.length });
    expect(await sut.read(stored.sha256)).toEqual(content);
    expect(Buffer.concat(await (await sut.open(stored.sha256))!.toArray())).toEqual(content);
    expect(await sut.exists(stored.sha256)).toBe(true);
  });

  it('stores the same content once and leaves no temporary copies', async () => {
    const a = await sut.put(Readable.from(['same bytes']));
    const b = await sut.put(Readable.from(['same ', 'bytes']));
    expect(a).toEqual(b);
    expect(await store.leftovers()).toEqual([]);
  });

  it('leaves no temporary copy when the content fails while its file is still being opened (a slow disk)', async () => {
    const disk = slowDiskOpens(100);
    try {
      const tooLarge = new Readable({
        read() {
          this.destroy(new Error('larger than the limit'));
        },
      });
      await expect(sut.put(tooLarge)).rejects.toThrow('larger than the limit');
      await disk.opened();
    } finally {
      disk.restore();
    }
    expect(await store.leftovers()).toEqual([]);
  });

  it('streams large content without buffering it', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const stored = await sut.put(
      Readable.from(
        (function* () {
          for (let i = 0; i < 24; i++) yield chunk;
        })(),
      ),
    );
    expect(stored.size).toBe(24 * 1024 * 1024);
    expect((await sut.read(stored.sha256)).length).toBe(24 * 1024 * 1024);
  });

  it('deletes, and says a missing blob does not exist', async () => {
    const stored = await sut.put(Readable.from(['bye']));
    await sut.delete(stored.sha256);
    expect(await sut.exists(stored.sha256)).toBe(false);
    expect(await sut.open(stored.sha256)).toBeNull();
    await expect(sut.read(stored.sha256)).rejects.toThrow();
  });

  it('refuses a key that is not a SHA-256', async () => {
    await expect(sut.exists('../../etc/passwd')).rejects.toThrow('not a sha256');
  });
});
