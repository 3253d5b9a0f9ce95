import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { PriorityGate } from '@app/queue';

/** The longest a text extraction waits for a busy sync of its tenant in the same process, so a sync that never pauses cannot starve it. */
export const EXTRACTION_MAX_WAIT_MS = 10_000;
/** How often extractions waiting for their tenant's sync look whether another tenant waits for a slot. */
const LOOK_EVERY_MS = 100;
/**
 * A tenant's extractions are put back only once one has waited this long here, or its sync steps have held
 * its gate this long (through the pauses between them): a long sync, not a short one (whose text is next,
 * and whose steps end within a few hundred milliseconds).
 */
const PUT_BACK_AFTER_MS = 1000;
/** Past this many tenants' gates, the idle ones are let go. */
const GATES_KEPT = 1000;

/**
 * Lets a tenant's text extraction (CPU) give way to the same tenant's sync steps (I/O) in the same worker
 * process: its run ends as fast as its downloads allow, and its text is extracted once the process has no
 * step of its in hand. Another tenant's steps do not hold it up (CONTRACT.md: one tenant's work never waits
 * behind another's); the extraction processes' nice value keeps the event loop's share. A step often follows
 * another at once (the queue hands over the next job), so a gate opens 250 ms after the last. Jobs queued
 * before steps carried their tenant share one gate ('').
 *
 * An extraction that waits holds its slot of the fair share: a tenant's long sync would keep every slot but
 * the reserved one idle, and another tenant's text would be extracted one file at a time. So once one of a
 * tenant's extractions has waited a second here, or its steps have held its gate a second, its extractions
 * here are put back (their slots freed, the jobs due again a little later, the tenant resting meanwhile:
 * FairShare.putBack) while another tenant waits for a slot that would be its (they look every 100 ms), and
 * so is one that comes meanwhile.
 */
@Injectable()
export class ExtractionGate {
  private readonly gates = new Map<string, PriorityGate>();
  /** When each extraction waiting for its turn in this process began to wait, by tenant, oldest first. */
  private readonly waiters = new Map<string, number[]>();
  private looking?: NodeJS.Timeout;
  private lookInFlight?: Promise<unknown>;
  /** How often each tenant's waiting extractions here were put back: a waiter that sees it move goes back. */
  private readonly putBacks = new Map<string, number>();

  first<T>(tenantId: string | undefined, work: () => Promise<T>): Promise<T> {
    return this.of(tenantId).first(work);
  }

  turn(tenantId: string | undefined): Promise<void> {
    return this.of(tenantId).turn();
  }

  /**
   * Runs an extraction that holds a slot after its turn, or `putBack` instead when another tenant waits for
   * a slot it may take meanwhile (`wanted`: whether a tenant's slot would go to another).
   */
  async extraction<T>(
    tenantId = '',
    work: () => Promise<T>,
    putBack: () => Promise<T>,
    wanted: (tenantId: string) => Promise<boolean>,
  ): Promise<T> {
    if (!this.of(tenantId).shut) return work();
    if (this.waitedLong(tenantId) && (await wanted(tenantId).catch(() => false))) return putBack();
    const putBacks = this.putBacks.get(tenantId) ?? 0;
    const since = Date.now();
    const waiting = this.waiters.get(tenantId) ?? [];
    this.waiters.set(tenantId, waiting);
    waiting.push(since);
    this.lookWhileWaiting(wanted);
    await this.turn(tenantId); // never rejects
    // Read before the last waiter's leaving clears the count.
    const putBackNow = (this.putBacks.get(tenantId) ?? 0) !== putBacks;
    waiting.splice(waiting.indexOf(since), 1);
    if (!waiting.length) [this.waiters, this.putBacks].forEach((byTenant) => byTenant.delete(tenantId));
    return putBackNow ? putBack() : work();
  }

  /** While extractions wait here, looks whether another tenant waits for a slot of theirs; if so, they go back. */
  private lookWhileWaiting(wanted: (tenantId: string) => Promise<boolean>): void {
    if (this.looking) return;
    this.looking = setInterval(() => {
      if (!this.waiters.size) {
        clearInterval(this.looking);
        this.looking = undefined;
        return;
      }
      // One look at a time: while Redis is away, a question waits for it, and more would pile up behind.
      if (this.lookInFlight) return;
      const tenants = [...this.waiters.keys()].filter((tenant) => this.waitedLong(tenant));
      this.lookInFlight = Promise.all(
        tenants.map((tenant) =>
          wanted(tenant).then(
            (yes) => yes && this.putBack(tenant),
            () => undefined,
          ),
        ),
      ).finally(() => (this.lookInFlight = undefined));
    }, LOOK_EVERY_MS).unref();
  }

  /** A long sync of the tenant: one of its extractions here waited a second, or its steps held the gate that long. */
  private waitedLong(tenantId: string): boolean {
    const oldest = this.waiters.get(tenantId)?.[0];
    if (oldest !== undefined && Date.now() - oldest >= PUT_BACK_AFTER_MS) return true;
    return (this.gates.get(tenantId)?.shutForMs ?? 0) >= PUT_BACK_AFTER_MS;
  }

  private putBack(tenantId: string): void {
    if (!this.waiters.has(tenantId)) return;
    this.putBacks.set(tenantId, (this.putBacks.get(tenantId) ?? 0) + 1);
    this.gates.get(tenantId)?.letWaitingGo();
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
