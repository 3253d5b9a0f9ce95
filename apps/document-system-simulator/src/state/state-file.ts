import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A JSON file replaced atomically (a temporary file renamed over it), readable by its owner only. */
export class StateFile {
  constructor(readonly path: string) {}

  /** The saved value, or null when there is no file yet. */
  read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return JSON.parse(text);
  }

  async write(value: unknown): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    await rm(temp, { force: true });
    await writeFile(temp, JSON.stringify(value), { mode: 0o600 });
    await rename(temp, this.path);
  }
}
