import { createWriteStream } from 'node:fs';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Streams `content` through `through` into a new file at `path`, and settles only once that file is closed.
 * pipeline() alone rejects as soon as a stream fails, while the file may still be opening: a caller that
 * then removed it would see it created afterwards and left behind.
 */
export async function streamIntoFile(content: Readable, through: Transform, path: string): Promise<void> {
  const file = createWriteStream(path);
  try {
    await pipeline(content, through, file);
  } finally {
    if (!file.closed) await new Promise<void>((closed) => file.once('close', () => closed()));
  }
}
