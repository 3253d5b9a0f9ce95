import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FsBlobStore } from './fs-blob-store';

describe(FsBlobStore.name, () => {
  let root: string;
  let sut: FsBlobStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'blobs-'));
    sut = new FsBlobStore(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('stores content under its SHA-256 and reads it back', async () => {
    const content = Buffer.from('A-501 wall sections');
    const stored = await sut.put(Readable.from([content]));
    expect(stored).toEqual({ sha256: createHash('sha256').update(content).digest('hex'), size: content.length });
    expect(await sut.read(stored.sha256)).toEqual(content);
    expect(await sut.exists(stored.sha256)).toBe(true);
  });

  it('stores the same content once and leaves no temp files', async () => {
    const a = await sut.put(Readable.from(['same bytes']));
    const b = await sut.put(Readable.from(['same ', 'bytes']));
    expect(a).toEqual(b);
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('streams large content without buffering it', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const stored = await sut.put(Readable.from((function* () { for (let i = 0; i < 64; i++) yield chunk; })()));
    expect(stored.size).toBe(64 * 1024 * 1024);
  });

  it('deletes', async () => {
    const stored = await sut.put(Readable.from(['bye']));
    await sut.delete(stored.sha256);
    expect(await sut.exists(stored.sha256)).toBe(false);
  });
});
