/** Polls `probe` until it returns a truthy value (which it returns), or throws after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | null | false | 0 | ''> | T | undefined | null | false | 0 | '',
  timeoutMs = 20000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as T;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves after `ms`: for a test whose behaviour is about time (an outage of a few seconds, a late duplicate). */
export const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
