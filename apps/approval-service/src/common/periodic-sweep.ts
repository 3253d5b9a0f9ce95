import type { Logger } from '@nestjs/common';

/**
 * A worker's sweep every `everyMs`, on a timer that keeps no process alive: one at a time (a turn that comes while
 * one runs is skipped), a failed one logged for the next to try again, and `stop` waits for the one running.
 */
export class PeriodicSweep {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly what: string,
    private readonly logger: Logger,
    private readonly sweep: () => Promise<unknown>,
  ) {}

  /** Sweeps every `everyMs`, and with `now` at once too. */
  start(everyMs: number, { now = false }: { now?: boolean } = {}): void {
    this.timer = setInterval(() => this.turn(), everyMs);
    this.timer.unref();
    if (now) this.turn();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  private turn(): void {
    this.sweeping ??= this.sweep()
      .then(() => undefined)
      .catch((error: Error) =>
        this.logger.warn({ error: error.message }, `${this.what} failed; the next one tries again`),
      )
      .finally(() => (this.sweeping = undefined));
  }
}
