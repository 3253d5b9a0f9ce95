/** How many of something each tenant has in hand here, such as first attempts that outlasted intake's wait. */
export class TenantCounts {
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

  count(tenantId: string): number {
    return this.counts.get(tenantId) ?? 0;
  }
}
