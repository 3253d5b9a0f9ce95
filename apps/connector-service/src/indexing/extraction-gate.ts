import { Injectable } from '@nestjs/common';

/** The longest a text extraction waits for a busy sync in the same process, so a sync that never pauses cannot starve it. */
export const EXTRACTION_MAX_WAIT_MS = 10_000;

/**
 * Lets text extraction (CPU) give way to sync steps (I/O) in the same worker process: a run ends as fast
 * as its downloads allow, and its text is extracted once the process has no sync step in hand.
 */
@Injectable()
export class ExtractionGate {
  private syncSteps = 0;
  private waiting: Array<() => void> = [];

  /** Runs a sync step; extraction waits while any is in hand. */
  async syncStep<T>(step: () => Promise<T>): Promise<T> {
    this.syncSteps++;
    try {
      return await step();
    } finally {
      this.syncSteps--;
      // A step often follows another at once (the queue hands over the next job): wait a moment before opening.
      if (!this.syncSteps) setTimeout(() => this.openIfIdle(), 250).unref();
    }
  }

  /** Resolves when no sync step is in hand, or after `maxWaitMs`. */
  async turn(maxWaitMs = EXTRACTION_MAX_WAIT_MS): Promise<void> {
    if (!this.syncSteps) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, maxWaitMs);
      this.waiting.push(done);
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  private openIfIdle(): void {
    if (this.syncSteps) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const open of waiting) open();
  }
}
