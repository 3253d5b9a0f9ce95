import type { Queue } from 'bull';

/** How often intake looks at the request queue's length: one Redis round trip per this at most, none per job. */
const SAMPLE_EVERY_MS = 100;

export interface IntakeLanesOptions {
  /** Requests waiting (in the queue at its last sample, plus those taken here and waiting) from which intake drains. */
  drainFrom: number;
  /** Requests taken here that wait for a lane to send their first attempt. */
  waitingHere: () => number;
}

/**
 * Whether intake drains a backlog. The request queue is first come, first served across tenants: behind a
 * backlog of one tenant, another's request waits for the whole backlog to be taken. While `drainFrom`
 * requests or more wait, intake only stores each request and puts its first attempt in its tenant's line
 * (FirstAttemptLine), which empties the queue several times faster (docs/approval-performance.md, "A backlog
 * in the request queue"). The queue's length is sampled at most every SAMPLE_EVERY_MS, as intake asks.
 */
export class IntakeLanes {
  private waitingInQueue = 0;
  private sampledAt = 0;
  private sampling = false;
  private drainStarted = new AbortController();

  constructor(
    private readonly queue: Queue,
    private readonly options: IntakeLanesOptions,
  ) {}

  /** Whether requests wait: in the queue at its last sample, and taken here but waiting for a lane. */
  get draining(): boolean {
    if (!this.sampling && Date.now() - this.sampledAt >= SAMPLE_EVERY_MS) this.sample();
    return this.waitingInQueue + this.options.waitingHere() >= this.options.drainFrom;
  }

  /** Aborted when a sample shows a backlog: requests waiting for a lane then go on draining. */
  get drainStarts(): AbortSignal {
    return this.drainStarted.signal;
  }

  private sample(): void {
    this.sampling = true;
    this.queue
      .getWaitingCount()
      .then(
        (count) => {
          this.waitingInQueue = count;
          if (!this.draining) return;
          this.drainStarted.abort();
          this.drainStarted = new AbortController();
        },
        // Redis away: intake cannot take requests either; the last sample stands.
        () => undefined,
      )
      .finally(() => {
        this.sampling = false;
        this.sampledAt = Date.now();
      });
  }
}
