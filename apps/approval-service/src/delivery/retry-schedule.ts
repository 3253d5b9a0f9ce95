/**
 * Delivery retries: after failed attempt n (n ≤ maxRetryAttempts) the next attempt starts 2^n seconds
 * later: 2 s, 4 s, 8 s, then 16 s … when more retries are configured.
 */
export function delayAfterFailedAttemptMs(attempt: number): number {
  return 2 ** attempt * 1000;
}

/** Attempt numbers start at 1; attempt 1 is the first delivery, the rest are retries. */
export function hasRetryLeft(failedAttempt: number, maxRetryAttempts: number): boolean {
  return failedAttempt <= maxRetryAttempts;
}
