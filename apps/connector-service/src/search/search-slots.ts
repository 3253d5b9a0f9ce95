import { DomainException, RetryLaterException } from '@app/errors';

/** As many as the search statement's own connections: more at once would only queue in the pool. */
export const SEARCH_SLOTS = 8;
/** A tenant's searches waiting in one process past this many are refused (429) rather than queued. */
export const MAX_WAITING_SEARCHES_PER_TENANT = 64;
export const TOO_MANY_SEARCHES = 'TOO_MANY_SEARCHES';
export const CLIENT_CLOSED_REQUEST = 'CLIENT_CLOSED_REQUEST';

/** A search waiting for its turn: started when its turn comes, or dropped when its caller leaves first. */
interface WaitingSearch {
  start: () => void;
  drop: () => void;
}

/** A tenant's searches in this process: how many run, when one last started, and those that wait. */
interface TenantSearches {
  running: number;
  lastStarted: number;
  waiting: WaitingSearch[];
}

/**
 * How many searches this process runs at once, and whose goes next. A free slot goes to the waiting
 * tenant with the fewest searches running, among equals to the one whose search started longest ago;
 * within a tenant, its searches run in the order they came. So one tenant's burst of searches queues
 * behind itself, never in front of another tenant's search. A search whose caller leaves while it waits
 * (`abandoned`) gives up its place and never runs.
 * Provided through a factory: its limits are plain numbers, not injected.
 */
export class SearchSlots {
  private running = 0;
  private waitingCount = 0;
  private starts = 0;
  private readonly tenants = new Map<string, TenantSearches>();

  constructor(
    private readonly slots = SEARCH_SLOTS,
    private readonly maxWaitingPerTenant = MAX_WAITING_SEARCHES_PER_TENANT,
  ) {}

  /** How many searches run and how many wait in this process, now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }

  async run<T>(tenantId: string, search: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
    await this.take(tenantId, abandoned);
    try {
      return await search();
    } finally {
      this.pass(tenantId);
    }
  }

  private take(tenantId: string, abandoned?: AbortSignal): Promise<void> {
    if (abandoned?.aborted) return Promise.reject(closedRequest());
    const tenant = this.tenant(tenantId);
    if (this.running < this.slots && this.waitingCount === 0) {
      this.start(tenant);
      return Promise.resolve();
    }
    if (tenant.waiting.length >= this.maxWaitingPerTenant) {
      this.forgetIfIdle(tenantId, tenant);
      throw new RetryLaterException(429, TOO_MANY_SEARCHES, 'Too many searches at once; try again shortly', 1);
    }
    this.waitingCount++;
    return new Promise((resolve, reject) => {
      const waiting: WaitingSearch = {
        start: () => {
          abandoned?.removeEventListener('abort', waiting.drop);
          resolve();
        },
        drop: () => {
          tenant.waiting.splice(tenant.waiting.indexOf(waiting), 1);
          this.waitingCount--;
          this.forgetIfIdle(tenantId, tenant);
          reject(closedRequest());
        },
      };
      tenant.waiting.push(waiting);
      abandoned?.addEventListener('abort', waiting.drop, { once: true });
    });
  }

  private pass(tenantId: string): void {
    const finished = this.tenants.get(tenantId) as TenantSearches;
    finished.running--;
    this.running--;
    this.forgetIfIdle(tenantId, finished);
    const next = this.nextInTurn();
    if (!next) return;
    this.waitingCount--;
    this.start(next);
    (next.waiting.shift() as WaitingSearch).start();
  }

  private nextInTurn(): TenantSearches | undefined {
    let next: TenantSearches | undefined;
    for (const tenant of this.tenants.values()) {
      if (!tenant.waiting.length) continue;
      const before =
        !next ||
        tenant.running < next.running ||
        (tenant.running === next.running && tenant.lastStarted < next.lastStarted);
      if (before) next = tenant;
    }
    return next;
  }

  private start(tenant: TenantSearches): void {
    tenant.running++;
    tenant.lastStarted = ++this.starts;
    this.running++;
  }

  private tenant(tenantId: string): TenantSearches {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) this.tenants.set(tenantId, (tenant = { running: 0, lastStarted: 0, waiting: [] }));
    return tenant;
  }

  private forgetIfIdle(tenantId: string, tenant: TenantSearches): void {
    if (!tenant.running && !tenant.waiting.length) this.tenants.delete(tenantId);
  }
}

/** Nobody reads this answer: the caller has gone (the status nginx logs for it). */
function closedRequest(): DomainException {
  return new DomainException(499, CLIENT_CLOSED_REQUEST, 'The caller left before its search started');
}
