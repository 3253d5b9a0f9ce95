import type { ConnectorEnv } from '../connector-env';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream';
import { DocumentSystemException } from './document-system.exception';

/**
 * Wall-clock and size bounds of document-system calls, besides the socket inactivity timeout (which a
 * slow endless stream never trips).
 */
export interface CallLimits {
  /** One HTTP exchange that is not file content, from request to its whole answer; also a download's grace period. */
  deadlineMs: number;
  /** After its grace period, a download must have averaged at least this rate. */
  minBytesPerSecond: number;
  /** An answer that is not file content is read up to this many bytes (CONTRACT.md: 16 MiB). */
  maxAnswerBytes: number;
  /** One listing page holds at most this many items; a longer page fails its call. */
  maxListingItems: number;
  /** A download ends by grace + listed size ÷ minBytesPerSecond, and never later than this. */
  maxFileSeconds: number;
  /**
   * A tenant's calls in flight in one process at once, over all its logins; its further calls wait their turn
   * (CallShares).
   */
  callsPerTenant: number;
}

export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export const DEFAULT_CALL_LIMITS: CallLimits = {
  deadlineMs: 60_000,
  minBytesPerSecond: 256 * 1024,
  maxAnswerBytes: MAX_ANSWER_BYTES,
  maxListingItems: 10_000,
  maxFileSeconds: 3600,
  callsPerTenant: 16,
};

export function callLimitsFrom(env: ConnectorEnv): CallLimits {
  return {
    deadlineMs: env.DOCUMENT_SYSTEM_DEADLINE_MS,
    minBytesPerSecond: env.DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND,
    maxAnswerBytes: MAX_ANSWER_BYTES,
    maxListingItems: env.LISTING_MAX_ITEMS,
    maxFileSeconds: env.MAX_FILE_SECONDS,
    // A lone tenant's sync steps (half the slots, one call each) beside a picker page's probes.
    callsPerTenant: Math.max(DEFAULT_CALL_LIMITS.callsPerTenant, env.SYNC_SLOTS),
  };
}

/**
 * The deadlines of one download. It falls behind when it has taken longer than `deadlineMs` (its grace)
 * plus the time its bytes so far would take at `minBytesPerSecond`: a trickle ends early. And it ends by
 * grace + its listed size at that rate, never later than `maxFileSeconds` (CONTRACT.md, fair share): a
 * file whose size is unknown, or that streams past it, cannot hold a sync slot for longer.
 * `onExpiry` runs once, at the first deadline passed (before or after its answer arrived).
 */
export class DownloadDeadline {
  readonly controller = new AbortController();
  private readonly startedAt = Date.now();
  private readonly endBy: number;
  private received = 0;
  private timer?: NodeJS.Timeout;
  private onExpiry: (error: Error) => void = () => this.controller.abort();

  constructor(
    private readonly limits: CallLimits,
    private readonly listedSize?: number,
  ) {
    const bySize =
      listedSize === undefined ? Infinity : limits.deadlineMs + (listedSize / limits.minBytesPerSecond) * 1000;
    this.endBy = this.startedAt + Math.min(limits.maxFileSeconds * 1000, bySize);
    this.arm();
  }

  /** The answer's bytes, passed through while counted; destroyed with the reason once a deadline passes. */
  pace(source: Readable): Readable {
    const counted = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.received += chunk.length;
        done(null, chunk);
      },
    });
    this.onExpiry = (error) => {
      counted.destroy(error);
      this.controller.abort();
    };
    pipeline(source, counted, () => this.stop());
    return counted;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    const now = Date.now();
    const behindAt = this.startedAt + this.limits.deadlineMs + (this.received / this.limits.minBytesPerSecond) * 1000;
    if (now >= this.endBy) return this.onExpiry(DocumentSystemException.downloadTooSlow(this.endByReason()));
    if (now >= behindAt)
      return this.onExpiry(
        DocumentSystemException.downloadTooSlow(
          `The download fell behind the minimum rate of ${this.limits.minBytesPerSecond} bytes/s after its grace period`,
        ),
      );
    this.timer = setTimeout(() => this.arm(), Math.min(behindAt, this.endBy) - now).unref();
  }

  private endByReason(): string {
    const seconds = Math.round((this.endBy - this.startedAt) / 100) / 10;
    const basis =
      this.listedSize === undefined || seconds >= this.limits.maxFileSeconds
        ? 'MAX_FILE_SECONDS'
        : `${this.listedSize} listed bytes at ${this.limits.minBytesPerSecond} bytes/s`;
    return `The download did not end by its deadline of ${seconds} s (${basis})`;
  }
}
