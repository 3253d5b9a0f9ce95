import { Logger } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import { TenantTurns } from '@app/database';

/** A request waiting for a lane when intake starts to drain: it goes on draining instead. */
export class DrainInstead extends Error {
  constructor() {
    super('intake drains a backlog: the request is stored and its first attempt put in its line');
  }
}

export interface FirstAttemptLineOptions {
  /** First attempts intake sends at a time (its lanes), drained or not. */
  lanes: number;
  /** First attempts waiting in the line, at most: past it, one goes to the delivery fair share at once. */
  maxWaiting: number;
  /**
   * A first attempt that waited this long goes to the delivery fair share instead of a lane: kept well under
   * what the stalled-delivery sweeper waits for, so the sweeper never sends one a line still holds.
   */
  staleAfterMs: number;
}

/** Sends a first attempt: from a lane (as intake does without a backlog), or, when `queued`, through the fair share. */
export type SendFirstAttempt = (queued: boolean) => Promise<void>;

/**
 * Intake's lanes and, while it drains a backlog, its in-memory line of first attempts of approvals already
 * stored, whose request jobs have completed. A free lane goes to the tenant with the fewest first attempts in
 * flight (TenantTurns): another tenant's request behind a backlog takes the next lane once it is stored. An
 * attempt only here when its process dies is sent by the stalled-delivery sweeper (its approval stays Pending
 * with nothing sent), the line is bounded, and one that waited `staleAfterMs` goes through the fair share.
 */
export class FirstAttemptLine {
  private readonly logger = new Logger(FirstAttemptLine.name);
  private readonly turns: TenantTurns;
  private waiting = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private closing = false;

  constructor(private readonly options: FirstAttemptLineOptions) {
    this.turns = new TenantTurns(options.lanes, { left: () => new DrainInstead() });
  }

  /** First attempts and requests waiting here for a lane. */
  get waitingHere(): number {
    return this.turns.load.waiting;
  }

  /** Runs a request's work in a lane; rejects with DrainInstead if `drainStarts` aborts while it waits. */
  inLane<T>(tenantId: string, work: () => Promise<T>, drainStarts: AbortSignal): Promise<T> {
    setMaxListeners(0, drainStarts); // one listener per request waiting for a lane
    return this.turns.run(tenantId, work, drainStarts);
  }

  /**
   * Puts a first attempt in its tenant's line. When the line is full or this process is closing, it is sent
   * through the fair share instead: resolves once it is added there.
   */
  async add(tenantId: string, send: SendFirstAttempt): Promise<void> {
    if (this.closing || this.waiting >= this.options.maxWaiting) return send(true);
    this.waiting++;
    const addedAt = Date.now();
    const turn = this.turns
      .run(tenantId, () => {
        this.leaveLine();
        return send(this.closing || Date.now() - addedAt >= this.options.staleAfterMs);
      })
      .catch((error: Error) =>
        this.logger.warn({ tenantId, error: error.message }, 'first attempt not handed off; the sweeper sends it'),
      )
      .finally(() => this.inFlight.delete(turn));
    this.inFlight.add(turn);
  }

  /** Stops lining attempts up; those still waiting go to the fair share as their turns come. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  private leaveLine(): void {
    this.waiting--;
  }
}
