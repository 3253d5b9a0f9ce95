/** Capped exponential backoff with full jitter, and Retry-After honoured up to the cap. */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 200, maxDelayMs: 10_000 };

/** Delay before attempt `attempt + 1` (attempt counts from 1), given an optional Retry-After header. */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfter?: string | null,
  random = Math.random,
): number {
  const hinted = parseRetryAfterMs(retryAfter);
  if (hinted !== null) return Math.min(hinted, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function parseRetryAfterMs(value?: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Statuses worth another try: rate limits and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNREFUSED',
  'EAI_AGAIN',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'UND_ERR_SOCKET',
]);

export function isRetryableNetworkError(code?: string, message?: string): boolean {
  return (code !== undefined && RETRYABLE_CODES.has(code)) || /socket hang up|aborted/i.test(message ?? '');
}
