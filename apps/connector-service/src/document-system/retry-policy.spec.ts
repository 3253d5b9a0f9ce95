import { DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfterMs, retryDelayMs } from './retry-policy';

describe('retry policy', () => {
  it('grows the jitter ceiling exponentially up to the cap', () => {
    const top = () => 0.999999;
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, null, top)).toBe(200);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 2, null, top)).toBe(400);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 4, null, top)).toBe(1600);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 20, null, top)).toBe(10_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 3, null, () => 0)).toBe(0);
  });

  it('honours Retry-After in seconds or as a date, capped', () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, '2')).toBe(2000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, '3600')).toBe(10_000);
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('soon')).toBeNull();
  });

  it('retries 429, 408 and 5xx only', () => {
    expect([429, 408, 500, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404].some(isRetryableStatus)).toBe(false);
  });
});
