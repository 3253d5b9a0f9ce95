import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { PriorityGate } from '@app/queue';

/** The longest a text extraction waits for a busy sync of its tenant in the same process, so a sync that never pauses cannot starve it. */
export const EXTRACTION_MAX_WAIT_MS = 10_000;
/** Past this many tenants' gates, the idle ones are let go. */
const GATES_KEPT = 1000;

/**
 * Lets a tenant's text extraction (CPU) give way to the same tenant's sync steps (I/O) in the same worker
 * process: its run ends as fast as its downloads allow, and its text is extracted once the process has no
 * step of its in hand. Another tenant's steps do not hold it up (CONTRACT.md: one tenant's work never waits
 * behind another's); the extraction threads' nice value keeps the event loop's share. A step often follows
 * another at once (the queue hands over the next job), so a gate opens 250 ms after the last. Jobs queued
 * before steps carried their tenant share one gate ('').
 *
 * An extraction that waits holds its slot of the fair share. So it waits only while no other tenant's
 * extraction is in the process, and when one comes, those waiting go: slots held idle by a tenant's long
 * sync would leave another tenant's text one slot, the reserved one.
 */
@Injectable()
export class ExtractionGate {
  private readonly gates = new Map<string, PriorityGate>();
  /** Extractions in hand in this process (waiting for their turn or running), by tenant. */
  private readonly extracting = new Map<string, number>();

  first<T>(tenantId: string | undefined, work: () => Promise<T>): Promise<T> {
    return this.of(tenantId).first(work);
  }

  turn(tenantId: string | undefined): Promise<void> {
    return this.of(tenantId).turn();
  }

  /** Runs an extraction that holds a slot: after its turn, unless another tenant's extraction is in the process. */
  async extraction<T>(tenantId = '', work: () => Promise<T>): Promise<T> {
    this.extracting.set(tenantId, (this.extracting.get(tenantId) ?? 0) + 1);
    for (const [tenant, gate] of this.gates) if (tenant !== tenantId) gate.letWaitingGo();
    try {
      if (this.extracting.size === 1) await this.turn(tenantId);
      return await work();
    } finally {
      const left = this.extracting.get(tenantId)! - 1;
      if (left) this.extracting.set(tenantId, left);
      else this.extracting.delete(tenantId);
    }
  }

  private of(tenantId = ''): PriorityGate {
    let gate = this.gates.get(tenantId);
    if (gate) return gate;
    if (this.gates.size >= GATES_KEPT)
      for (const [tenant, kept] of this.gates) if (kept.idle) this.gates.delete(tenant);
    gate = new PriorityGate({ maxWaitMs: EXTRACTION_MAX_WAIT_MS, settleMs: 250 });
    this.gates.set(tenantId, gate);
    return gate;
  }
}

/** The tenant the producer put on a sync step's or an extraction's job (none on jobs queued before it did). */
export function tenantOf(job: Job): string | undefined {
  const tenantId = (job.data as { tenantId?: unknown } | undefined)?.tenantId;
  return typeof tenantId === 'string' ? tenantId : undefined;
}
