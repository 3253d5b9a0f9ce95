import { Global, Injectable, Module } from '@nestjs/common';

/**
 * Where this process is in its shutdown, as the HTTP side sees it: readiness answers 503 once it shuts
 * down, and what would hold the server's close (a stream that never ends by itself) ends as it closes.
 */
@Injectable()
export class ServingState {
  private shutdownBegun = false;
  private readonly onServerClose = new Set<() => void>();

  get shuttingDown(): boolean {
    return this.shutdownBegun;
  }

  beginShutdown(): void {
    this.shutdownBegun = true;
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
