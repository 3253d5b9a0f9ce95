/**
 * A provider that refreshes gauges just before a scrape (queue depths, a backlog count). Every provider
 * of the app that extends this class is found and run on each scrape, each within its deadline.
 */
export abstract class ScrapeCollector {
  abstract collect(): Promise<void>;
}

/** How long one collector may take on a scrape; past it, its gauges are left out, the scrape is not held. */
export const COLLECT_TIMEOUT_MS = 1000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
