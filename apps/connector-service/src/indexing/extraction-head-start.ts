/** The window over which a tenant's allowance of documents ahead of the queue is counted. */
export const HEAD_START_WINDOW_MS = 60_000;
/** Past this many tenants counted, the windows that have ended are forgotten. */
const TENANTS_KEPT = 1000;

/**
 * How many of a tenant's documents may go ahead of the extraction jobs already waiting, per minute in
 * this process: enough for a new data source to be searchable soon whatever backlog another tenant has,
 * too few for one tenant to keep the backlog from moving by syncing again and again.
 */
export class ExtractionHeadStart {
  private readonly used = new Map<string, { since: number; count: number }>();

  constructor(
    private readonly perWindow: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `count` more documents of the tenant may go ahead now; counted against its allowance if so. */
  take(tenantId: string, count: number): boolean {
    const now = this.now();
    let window = this.used.get(tenantId);
    if (!window || now - window.since >= HEAD_START_WINDOW_MS) {
      this.forgetEnded(now);
      window = { since: now, count: 0 };
      this.used.set(tenantId, window);
    }
    if (window.count + count > this.perWindow) return false;
    window.count += count;
    return true;
  }

  private forgetEnded(now: number): void {
    if (this.used.size < TENANTS_KEPT) return;
    for (const [tenantId, window] of this.used)
      if (now - window.since >= HEAD_START_WINDOW_MS) this.used.delete(tenantId);
  }
}
