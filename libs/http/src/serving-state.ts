import { Global, Injectable, Module } from '@nestjs/common';

/**
 * Where this process is in its shutdown, as the HTTP side sees it: readiness answers 503 once it shuts
 * down, and what would hold the server's close (a stream that never ends by itself) ends as it closes.
 * Work that may finish within the grace (a webhook delivery in flight) reads when a signal began it.
 */
@Injectable()
export class ServingState {
  private shutdownBegun = false;
  private signalledAt?: number;
  private readonly onServerClose = new Set<() => void>();

  get shuttingDown(): boolean {
    return this.shutdownBegun;
  }

  /**
   * When a shutdown signal (SIGTERM, SIGINT) began the shutdown: SHUTDOWN_GRACE_MS counts from here. Undefined
   * while serving, and on app.close() (tests, a failed start), which gives work in flight no grace.
   */
  get shutdownSignalledAt(): number | undefined {
    return this.signalledAt;
  }

  beginShutdown(signal?: string): void {
    this.shutdownBegun = true;
    if (signal) this.signalledAt ??= Date.now();
  }

  /** `end` runs when the server stops taking connections, before it waits for the requests in flight. */
  whenServerCloses(end: () => void): void {
    this.onServerClose.add(end);
  }

  serverCloses(): void {
    for (const end of this.onServerClose) end();
    this.onServerClose.clear();
  }
}

/** One ServingState per app, for whichever module reads it (the health module imports this one). */
@Global()
@Module({ providers: [ServingState], exports: [ServingState] })
export class ServingStateModule {}
