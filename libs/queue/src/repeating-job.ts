import { Logger } from '@nestjs/common';
import type { Queue } from 'bull';

/**
 * Keeps a repeating job (a sweep) in Redis: adds it at once and again every `everyMs`, so that it comes back
 * should Redis lose it (a restart without persistence, an eviction) while the process runs on. Adding it
 * again while it is there changes nothing: Bull keys a repeating job by its name, id and interval.
 */
export class RepeatingJob {
  private readonly logger = new Logger(RepeatingJob.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly name: string,
    private readonly add: () => Promise<void>,
    private readonly everyMs: number,
  ) {}

  async start(): Promise<void> {
    await this.add();
    this.timer = setInterval(() => {
      this.add().catch((error: Error) =>
        this.logger.warn(
          { job: this.name, error: error.message },
          'repeating job not renewed; the next turn tries again',
        ),
      );
    }, this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/**
 * Drops a repeating job's entries at another interval than `everyMs` (its setting changed): Bull keys each
 * interval apart, and an entry left behind would go on repeating beside the new one.
 */
export async function dropOtherIntervals(queue: Queue, name: string, id: string, everyMs: number): Promise<void> {
  for (const entry of await queue.getRepeatableJobs())
    if (entry.name === name && entry.id === id && entry.every !== everyMs) await queue.removeRepeatableByKey(entry.key);
}
