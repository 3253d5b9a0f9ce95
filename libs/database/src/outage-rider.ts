import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { isInfrastructureError, isRetryableConflict } from '@app/errors';

/** Waits between tries of held work: doubling from the first to the last, so a returning database is used within 2 s. */
export const OUTAGE_RETRY_MS = { first: 100, last: 2000 } as const;
/** How long the database must answer before an outage is over: one that flaps while restarting is one outage. */
export const OUTAGE_SETTLE_MS = 1000;

/**
 * Rides out an outage of PostgreSQL (or Redis): work that fails for an infrastructure reason is held
 * and run again with backoff until it succeeds, never failed. A queue job held this way keeps its lock
 * (Bull renews it while the handler runs) and its slot, so a worker takes no new jobs meanwhile. The
 * outage is logged once when it starts and once when it ends, however many jobs wait on it.
 */
@Injectable()
export class OutageRider implements OnModuleDestroy {
  private readonly logger = new Logger('Outage');
  private down?: { since: number; back?: NodeJS.Timeout };
  private lastRecovery = 0;
  private closing = false;

  /**
   * Runs `work` until it succeeds or fails for a reason of its own; an outage longer than `maxMs` fails it
   * after all. `isOutage`, for work that also calls other services, says whether an infrastructure error
   * was the store's (a document system that is away is not an outage to hold for).
   */
  async ride<T>(
    work: () => Promise<T>,
    maxMs = Infinity,
    isOutage: (error: unknown) => Promise<boolean> = async () => true,
  ): Promise<T> {
    const deadline = Date.now() + maxMs;
    for (let wait: number = OUTAGE_RETRY_MS.first; ; wait = Math.min(wait * 2, OUTAGE_RETRY_MS.last)) {
      const started = Date.now();
      try {
        const value = await work();
        this.recovered();
        return value;
      } catch (error) {
        // An application that closes (tests; production exits on SIGTERM) stops holding: the work fails as it would have.
        if (this.closing || !isInfrastructureError(error) || Date.now() + wait > deadline) throw error;
        if (!(await isOutage(error)) || !this.report(error, started)) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait * (0.75 + Math.random() / 2)));
      }
    }
  }

  /** For work that is tried again by its own schedule (a poller): true when the error is the infrastructure's. */
  report(error: unknown, startedAt = Date.now()): boolean {
    if (!isInfrastructureError(error)) return false;
    // A deadlock or serialization failure lost a race: it is run again, but the database is not away.
    if (isRetryableConflict(error)) return true;
    if (this.down) {
      clearTimeout(this.down.back);
      this.down.back = undefined;
    } else if (startedAt >= this.lastRecovery) {
      // Work that started before the last recovery fails late with the old outage's error: no new outage.
      this.down = { since: Date.now() };
      this.logger.warn(
        { error: (error as Error).message },
        'database or Redis unreachable: holding work until it is back',
      );
    }
    return true;
  }

  /** Work succeeded: an outage ends once the database has answered for a moment without failing again. */
  recovered(): void {
    const down = this.down;
    if (!down || down.back) return;
    const firstSuccess = Date.now();
    down.back = setTimeout(() => {
      this.down = undefined;
      this.lastRecovery = firstSuccess;
      this.logger.warn(
        { outageSeconds: Number(((firstSuccess - down.since) / 1000).toFixed(1)) },
        'database and Redis reachable again: held work resumes',
      );
    }, OUTAGE_SETTLE_MS);
    down.back.unref();
  }

  onModuleDestroy(): void {
    this.closing = true;
    clearTimeout(this.down?.back);
  }
}
