import { pipeline, Readable, Transform } from 'node:stream';

/** The file's bytes passed MAX_FILE_BYTES: it is not stored. */
export class FileTooLarge extends Error {
  constructor(
    readonly limitBytes: number,
    /** What we know of its size: the larger of the listed size and the bytes seen. */
    readonly sizeBytes: number,
  ) {
    super(`larger than ${limitBytes} bytes`);
  }
}

/** `source` passed through until it exceeds `limitBytes`, then failed with FileTooLarge (and `source` destroyed). */
export function capped(source: Readable, limitBytes: number): Readable {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > limitBytes ? new FileTooLarge(limitBytes, seen) : null, chunk);
    },
  });
  pipeline(source, cap, () => undefined);
  return cap;
}
