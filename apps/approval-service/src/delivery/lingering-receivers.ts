import { Injectable } from '@nestjs/common';

/** A receiver that took longer than this to answer its tenant's last attempt here lingers. */
const LINGERING_ANSWER_MS = 50;

/** Tenants whose receiver's last answer here took longer than LINGERING_ANSWER_MS (docs/approval-performance.md). */
@Injectable()
export class LingeringReceivers {
  private readonly tenants = new Set<string>();

  answered(tenantId: string, durationMs: number): void {
    if (durationMs > LINGERING_ANSWER_MS) this.tenants.add(tenantId);
    else this.tenants.delete(tenantId);
  }

  has(tenantId: string): boolean {
    return this.tenants.has(tenantId);
  }
}
