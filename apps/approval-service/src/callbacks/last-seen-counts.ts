import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

/** Past this many clients the expired entries are dropped: many addresses cannot grow the map for long. */
const PRUNE_ABOVE = 10_000;

interface Seen {
  totalHits: number;
  expiresAt: number;
  blocked: boolean;
  /** Hits of this process sent to Redis whose answer has not come back. */
  pending: number;
}

/**
 * What Redis last answered for each client's count, in this process. While a client is well below its
 * limit, a callback can be let through on that answer (plus this process's hits not yet answered) and
 * its own hit counted in the background: waiting for Redis would cost every callback one more turn of a
 * busy event loop. At half the limit, when blocked or when the window has passed, every hit waits for
 * Redis again, so the limit holds to within the hits admitted during one round trip.
 */
export class LastSeenCounts {
  private readonly seen = new Map<string, Seen>();

  /** An answer without Redis, with the hit taken into account; undefined when Redis must be asked. */
  answer(key: string, limit: number, now = Date.now()): ThrottlerStorageRecord | undefined {
    const seen = this.seen.get(key);
    if (!seen || seen.blocked || now >= seen.expiresAt) return undefined;
    if (seen.totalHits + seen.pending + 1 > limit / 2) return undefined;
    seen.pending++;
    return {
      totalHits: seen.totalHits + seen.pending,
      timeToExpire: Math.ceil((seen.expiresAt - now) / 1000),
      isBlocked: false,
      timeToBlockExpire: 0,
    };
  }

  /** Redis answered a hit; `answered` is true for a hit `answer` had let through. */
  remember(key: string, record: ThrottlerStorageRecord, answered: boolean, now = Date.now()): void {
    const seen = this.seen.get(key);
    const pending = Math.max(0, (seen?.pending ?? 0) - (answered ? 1 : 0));
    if (!seen && this.seen.size >= PRUNE_ABOVE) this.prune(now);
    this.seen.set(key, {
      totalHits: record.totalHits,
      expiresAt: now + record.timeToExpire * 1000,
      blocked: record.isBlocked,
      pending,
    });
  }

  /** A background hit Redis did not answer: it no longer waits. */
  forget(key: string): void {
    const seen = this.seen.get(key);
    if (seen) seen.pending = Math.max(0, seen.pending - 1);
  }

  private prune(now: number): void {
    for (const [key, seen] of this.seen) if (now >= seen.expiresAt) this.seen.delete(key);
    if (this.seen.size >= PRUNE_ABOVE) this.seen.clear();
  }
}
