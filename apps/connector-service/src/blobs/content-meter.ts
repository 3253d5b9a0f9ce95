import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { StoredBlob } from './blob-store';

/** A pass-through stream that hashes (SHA-256) and counts what flows through it. */
export function contentMeter(): { stream: Transform; result(): StoredBlob } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ sha256: hash.digest('hex'), size }) };
}
