import type { ConnectorEnv } from '../connector-env';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream';

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
}

export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export const DEFAULT_CALL_LIMITS: CallLimits = {
  deadlineMs: 60_000,
  minBytesPerSecond: 256 * 1024,
  maxAnswerBytes: MAX_ANSWER_BYTES,
};

export function callLimitsFrom(env: ConnectorEnv): CallLimits {
  return {
    deadlineMs: env.DOCUMENT_SYSTEM_DEADLINE_MS,
    minBytesPerSecond: env.DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND,
    maxAnswerBytes: MAX_ANSWER_BYTES,
  };
}

/**
 * The deadline of one download: `deadlineMs` to start, plus the time its bytes so far would take at
 * `minBytesPerSecond`. So a large file passes at any healthy rate, and a trickle ends once it falls behind.
 * `expired` runs once, when the download falls behind (before or after its answer arrived).
 */
export class DownloadDeadline {
  readonly controller = new AbortController();
  private readonly startedAt = Date.now();
  private received = 0;
  private timer?: NodeJS.Timeout;
  private onExpiry: () => void = () => this.controller.abort();

  constructor(private readonly limits: CallLimits) {
    this.arm();
  }

  /** The answer's bytes, passed through while counted; destroyed with `error()` once the deadline passes. */
  pace(source: Readable, error: () => Error): Readable {
    const counted = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.received += chunk.length;
        done(null, chunk);
      },
    });
    this.onExpiry = () => {
      counted.destroy(error());
      this.controller.abort();
    };
    pipeline(source, counted, () => this.stop());
    return counted;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    const allowedUntil =
      this.startedAt + this.limits.deadlineMs + (this.received / this.limits.minBytesPerSecond) * 1000;
    const left = allowedUntil - Date.now();
    if (left <= 0) return this.onExpiry();
    this.timer = setTimeout(() => this.arm(), left).unref();
  }
}
