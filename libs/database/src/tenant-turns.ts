/** One waiting for its turn: started when its turn comes, or dropped, with the reason, when it stops waiting first. */
interface Waiting {
  start: () => void;
  drop: (reason: Error) => void;
}

/** A tenant's work in this process: how much runs, when its last started, and what waits. */
interface TenantWork {
  running: number;
  lastStarted: number;
  waiting: Waiting[];
}

export interface TurnLimits {
  /** Why one whose caller left (its `abandoned` signal) while it waited never ran: needed by a caller that passes one. */
  left?: () => Error;
  /** A tenant's work waiting past this many is refused with `tooMany()` rather than queued. */
  maxWaitingPerTenant?: number;
  tooMany?: () => Error;
  /** The last slots, kept for a tenant that holds none: its first work starts at once however long others' takes. */
  reserved?: number;
  /** One that waits this long gives up with `tooLong()`. */
  maxWaitMs?: number;
  tooLong?: () => Error;
}

/**
 * How much work of every tenant this process runs at once, and whose goes next. A free slot goes to the
 * waiting tenant with the fewest slots, among equals to the one whose work started longest ago; within a
 * tenant, its work runs in the order it came. So one tenant's burst queues behind itself, never in front of
 * another tenant's work, and while another tenant waits, a tenant is given a slot only if it holds fewer
 * than that one (so at most half of them with two tenants waiting). A lone tenant may take every slot but
 * the `reserved` ones, which only a tenant holding none may take.
 * Work whose caller leaves (`abandoned`) or waits too long while it waits gives up its place and never runs.
 */
export class TenantTurns {
  private running = 0;
  private waitingCount = 0;
  private starts = 0;
  private readonly tenants = new Map<string, TenantWork>();

  constructor(
    private readonly slots: number,
    private readonly limits: TurnLimits,
  ) {}

  /** How much work runs and how much waits in this process, now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }

  async run<T>(tenantId: string, work: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
    await this.take(tenantId, abandoned);
    try {
      return await work();
    } finally {
      this.pass(tenantId);
    }
  }

  /** Resolves once the tenant holds a slot; every take that resolved is followed by exactly one `pass`. */
  take(tenantId: string, abandoned?: AbortSignal): Promise<void> {
    if (abandoned?.aborted) return Promise.reject(this.leftError());
    const tenant = this.tenant(tenantId);
    if (this.waitingCount === 0 && this.mayStart(tenant)) {
      this.start(tenant);
      return Promise.resolve();
    }
    const { maxWaitingPerTenant = Infinity, tooMany, maxWaitMs, tooLong } = this.limits;
    if (tenant.waiting.length >= maxWaitingPerTenant && tooMany) {
      this.forgetIfIdle(tenantId, tenant);
      return Promise.reject(tooMany());
    }
    this.waitingCount++;
    return new Promise((resolve, reject) => {
      const leave = () => waiting.drop(this.leftError());
      const timer = maxWaitMs && tooLong ? setTimeout(() => waiting.drop(tooLong()), maxWaitMs) : undefined;
      const waiting: Waiting = {
        start: () => {
          clearTimeout(timer);
          abandoned?.removeEventListener('abort', leave);
          resolve();
        },
        drop: (reason) => {
          clearTimeout(timer);
          abandoned?.removeEventListener('abort', leave);
          tenant.waiting.splice(tenant.waiting.indexOf(waiting), 1);
          this.waitingCount--;
          this.forgetIfIdle(tenantId, tenant);
          reject(reason);
        },
      };
      tenant.waiting.push(waiting);
      abandoned?.addEventListener('abort', leave, { once: true });
      this.admit();
    });
  }

  /** Gives the tenant's slot to whose turn is next. */
  pass(tenantId: string): void {
    const finished = this.tenants.get(tenantId) as TenantWork;
    finished.running--;
    this.running--;
    this.forgetIfIdle(tenantId, finished);
    this.admit();
  }

  /** Starts waiting work while there are slots it may take. */
  private leftError(): Error {
    return this.limits.left?.() ?? new Error('the caller left before its turn came');
  }

  private admit(): void {
    for (let next = this.nextInTurn(); next; next = this.nextInTurn()) {
      this.waitingCount--;
      this.start(next);
      (next.waiting.shift() as Waiting).start();
    }
  }

  private mayStart(tenant: TenantWork): boolean {
    return tenant.running === 0 ? this.running < this.slots : this.running < this.slots - (this.limits.reserved ?? 0);
  }

  private nextInTurn(): TenantWork | undefined {
    let next: TenantWork | undefined;
    for (const tenant of this.tenants.values()) {
      if (!tenant.waiting.length || !this.mayStart(tenant)) continue;
      const before =
        !next ||
        tenant.running < next.running ||
        (tenant.running === next.running && tenant.lastStarted < next.lastStarted);
      if (before) next = tenant;
    }
    return next;
  }

  private start(tenant: TenantWork): void {
    tenant.running++;
    tenant.lastStarted = ++this.starts;
    this.running++;
  }

  private tenant(tenantId: string): TenantWork {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) this.tenants.set(tenantId, (tenant = { running: 0, lastStarted: 0, waiting: [] }));
    return tenant;
  }

  private forgetIfIdle(tenantId: string, tenant: TenantWork): void {
    if (!tenant.running && !tenant.waiting.length) this.tenants.delete(tenantId);
  }
}
