import { delayAfterFailedAttemptMs, hasRetryLeft } from './retry-schedule';

describe('retry schedule', () => {
  it('waits 2 s, 4 s, 8 s, 16 s after failed attempts 1 to 4', () => {
    expect([1, 2, 3, 4].map(delayAfterFailedAttemptMs)).toEqual([2000, 4000, 8000, 16000]);
  });

  it('makes 1 + maxRetryAttempts attempts in all', () => {
    expect([1, 2, 3, 4].map((n) => hasRetryLeft(n, 3))).toEqual([true, true, true, false]);
    expect(hasRetryLeft(1, 0)).toBe(false);
  });
});
