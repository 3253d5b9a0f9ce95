import { randomUUID } from 'node:crypto';
import { mkdir, open as openFile, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobStore, StoredBlob } from './blob-store';
import { contentMeter } from './content-meter';
import { streamIntoFile } from './staged-file';

/** Blobs as files under one directory: `<root>/<aa>/<bb>/<sha256>`. */
export class FsBlobStore extends BlobStore {
  /** The blobs' directories this process made: each is made once, not before every write. */
  private readonly made = new Set<string>();

  constructor(private readonly root: string) {
    super();
  }

  async put(content: Readable): Promise<StoredBlob> {
    const tmpDir = join(this.root, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, randomUUID());
    const meter = contentMeter();
    let moved = false;
    try {
      await streamIntoFile(content, meter.stream, tmp);
      const { sha256, size } = meter.result();
      await this.moveInto(tmp, this.pathOf(sha256));
      moved = true;
      return { sha256, size };
    } finally {
      if (!moved) await rm(tmp, { force: true });
    }
  }

  /** Atomic; the same content written twice lands on the same name. */
  private async moveInto(tmp: string, target: string): Promise<void> {
    const directory = join(target, '..');
    await this.makeDirectory(directory);
    try {
      await rename(tmp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // Its directory was removed since this process made it: make it again.
      this.made.delete(directory);
      await this.makeDirectory(directory);
      await rename(tmp, target);
    }
  }

  private async makeDirectory(directory: string): Promise<void> {
    if (this.made.has(directory)) return;
    await mkdir(directory, { recursive: true });
    this.made.add(directory);
  }

  /** Opened before it returns: a blob deleted afterwards is still read to its end. */
  async open(sha256: string): Promise<Readable | null> {
    try {
      return (await openFile(this.pathOf(sha256))).createReadStream();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  read(sha256: string): Promise<Buffer> {
    return readFile(this.pathOf(sha256));
  }

  async exists(sha256: string): Promise<boolean> {
    return stat(this.pathOf(sha256)).then(
      () => true,
      () => false,
    );
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  private pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('not a sha256');
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }
}
