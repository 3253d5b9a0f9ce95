type Grant = (granted: boolean) => void;

/**
 * A tenant's share of one worker's delivery slots, so one tenant's slow receivers cannot hold them all.
 * A slot frees in milliseconds for a receiver that answers: a job over the share may wait a moment for
 * one (when the caller allows it), and is otherwise put back in the queue by its caller.
 */
export class TenantSlots {
  private readonly inUse = new Counts();
  private readonly waiting = new Map<string, Grant[]>();

  constructor(
    private readonly perTenant: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Takes a slot of the tenant's share; waits for one up to `maxWaitMs` when `mayWait`. False when none came. */
  async take(tenantId: string, mayWait: boolean): Promise<boolean> {
    if (this.inUse.of(tenantId) < this.perTenant) {
      this.inUse.add(tenantId);
      return true;
    }
    if (!mayWait) return false;
    return new Promise<boolean>((resolve) => {
      const queue = this.waiting.get(tenantId) ?? [];
      const grant: Grant = (granted) => {
        clearTimeout(timer);
        resolve(granted);
      };
      const timer = setTimeout(() => {
        this.dropWaiter(tenantId, grant);
        resolve(false);
      }, this.maxWaitMs);
      queue.push(grant);
      this.waiting.set(tenantId, queue);
    });
  }

  /** Gives the slot back: straight to the tenant's next waiter, if any. */
  release(tenantId: string): void {
    const next = this.waiting.get(tenantId)?.shift();
    if (next) {
      if (!this.waiting.get(tenantId)?.length) this.waiting.delete(tenantId);
      return next(true);
    }
    this.inUse.remove(tenantId);
  }

  inUseBy(tenantId: string): number {
    return this.inUse.of(tenantId);
  }

  private dropWaiter(tenantId: string, grant: Grant): void {
    const queue = (this.waiting.get(tenantId) ?? []).filter((g) => g !== grant);
    if (queue.length) this.waiting.set(tenantId, queue);
    else this.waiting.delete(tenantId);
  }
}

/** How many of something each tenant has in hand: slots, or first attempts that outlasted intake's wait. */
export class Counts {
  private readonly counts = new Map<string, number>();

  add(tenantId: string): void {
    this.counts.set(tenantId, (this.counts.get(tenantId) ?? 0) + 1);
  }

  remove(tenantId: string): void {
    const left = (this.counts.get(tenantId) ?? 1) - 1;
    if (left > 0) this.counts.set(tenantId, left);
    else this.counts.delete(tenantId);
  }

  has(tenantId: string): boolean {
    return this.counts.has(tenantId);
  }

  of(tenantId: string): number {
    return this.counts.get(tenantId) ?? 0;
  }
}
