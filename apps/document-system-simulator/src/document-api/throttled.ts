import { Transform } from 'node:stream';

/** Passes bytes on at most `bytesPerSecond`, in slices of a tenth of a second: a slow document system's downloads. */
export function throttled(bytesPerSecond: number): Transform {
  const slice = Math.max(1, Math.floor(bytesPerSecond / 10));
  return new Transform({
    async transform(chunk: Buffer, _encoding, done) {
      // A download whose caller hung up stops here: no timers for the rest of a large chunk.
      for (let at = 0; at < chunk.length && !this.destroyed; at += slice) {
        const part = chunk.subarray(at, at + slice);
        await new Promise((resolve) => setTimeout(resolve, (part.length / bytesPerSecond) * 1000));
        this.push(part);
      }
      done();
    },
  });
}
