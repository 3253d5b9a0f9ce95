import { pipeline, Readable, Transform } from 'node:stream';

/** How often bytes received are added to the run while a download goes on. */
export const STREAMED_BYTES_EVERY_MS = 250;

/**
 * Counts the bytes of a step's downloads as they arrive and reports them at most every
 * STREAMED_BYTES_EVERY_MS, so a run's progress moves while a big file comes in. Reports are sent one
 * after another, never awaited by the download; one that fails is dropped: the count only feeds the estimate.
 */
export class StreamedBytes {
  private pending = 0;
  private lastReport = Date.now();
  private reporting: Promise<void> = Promise.resolve();

  constructor(private readonly report: (bytes: number) => Promise<void>) {}

  counting(source: Readable): Readable {
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.pending += chunk.length;
        if (Date.now() - this.lastReport >= STREAMED_BYTES_EVERY_MS) this.send();
        done(null, chunk);
      },
    });
    pipeline(source, counter, () => undefined);
    return counter;
  }

  private send(): void {
    const bytes = this.pending;
    this.pending = 0;
    this.lastReport = Date.now();
    if (bytes > 0) this.reporting = this.reporting.then(() => this.report(bytes)).catch(() => undefined);
  }
}
