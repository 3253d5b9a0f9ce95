import { CallbackRejectionsRepository, MAX_LOGGED_REJECTIONS, Rejection } from './callback-rejections.repository';

/** A process writes an approval's wrong-token callbacks at most once in this many milliseconds. */
export const REJECTION_WRITE_INTERVAL_MS = 1_000;

/** Wrong-token callbacks waiting for one write: all counted, the first MAX_LOGGED_REJECTIONS kept for the log. */
class RejectionBatch {
  count = 0;
  private readonly arrivals: Array<{ error: string; at: number }> = [];
  private readonly waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  add(error: string): Promise<void> {
    this.count++;
    if (this.arrivals.length < MAX_LOGGED_REJECTIONS) this.arrivals.push({ error, at: Date.now() });
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  logged(): Rejection[] {
    const now = Date.now();
    return this.arrivals.map((a) => ({ error: a.error, ageMs: now - a.at }));
  }

  async settle(write: () => Promise<void>): Promise<void> {
    try {
      await write();
      this.waiters.forEach((w) => w.resolve());
    } catch (error) {
      this.waiters.forEach((w) => w.reject(error));
    }
  }
}

/**
 * Wrong-token callbacks, written to their approval's row at most once per REJECTION_WRITE_INTERVAL_MS per
 * process: a flood of forged tokens from many addresses then costs the row a write a second, not a write a
 * call, and leaves its lock to the real decision. The first is written at once; those that come while a
 * write is under way or lately done share the next. Each answer waits for the write that counts it, so an
 * approval read after a 401 shows that rejection.
 */
export class CallbackRejections {
  /** Approvals written lately, with the batch that waits for their next write. */
  private readonly lately = new Map<string, { next: RejectionBatch | null }>();

  constructor(
    private readonly repository: CallbackRejectionsRepository,
    private readonly intervalMs = REJECTION_WRITE_INTERVAL_MS,
  ) {}

  record(approvalId: string, error: string): Promise<void> {
    const slot = this.lately.get(approvalId);
    if (slot) return (slot.next ??= new RejectionBatch()).add(error);
    this.lately.set(approvalId, { next: null });
    const batch = new RejectionBatch();
    const counted = batch.add(error);
    void this.write(approvalId, batch);
    return counted;
  }

  private async write(approvalId: string, batch: RejectionBatch): Promise<void> {
    const started = Date.now();
    await batch.settle(() => this.repository.record(approvalId, batch.count, batch.logged()));
    const wait = started + this.intervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    const slot = this.lately.get(approvalId)!;
    const next = slot.next;
    slot.next = null;
    if (next) return this.write(approvalId, next);
    this.lately.delete(approvalId);
  }
}
