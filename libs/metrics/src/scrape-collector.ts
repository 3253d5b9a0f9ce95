/**
 * A provider that refreshes gauges just before a scrape (queue depths, a backlog count). Every provider
 * of the app that extends this class is found and run on each scrape, each within its deadline.
 */
export abstract class ScrapeCollector {
  abstract collect(): Promise<void>;
}

/**
 * How long one collector may take on a scrape; past it, the scrape answers with the collector's gauges as
 * they were (the last value it set), and the collector's work goes on without holding the scrape.
 */
export const COLLECT_TIMEOUT_MS = 1000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * `work` run once at a time: a call that finds a run in progress shares it. A scrape's deadline abandons
 * the wait, not the work, so without this a burst of scrapes would pile up counts that each hold a
 * connection (a pooled one for the database, Redis's command queue for queue depths).
 */
export function singleFlight<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () =>
    (running ??= work().finally(() => {
      running = undefined;
    }));
}
