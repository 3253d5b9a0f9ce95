export interface PriorityGateOptions {
  /** The longest the other work waits, so first-class work that never pauses cannot starve it. */
  maxWaitMs: number;
  /** How long the gate stays shut after the last first-class work ends, when more usually follows at once. */
  settleMs?: number;
}

/**
 * Lets one kind of work in a process go first: while any first-class work is in hand, the other kind
 * waits for its `turn()`. Work is never dropped, only reordered within the process.
 */
export class PriorityGate {
  private inHand = 0;
  private waiting: Array<() => void> = [];
  /** When first-class work came to an open gate; kept through the settle pauses between its steps. */
  private shutSince?: number;
  /** The settle time after the last first-class work ended: more work cancels it. */
  private settling?: NodeJS.Timeout;

  constructor(private readonly options: PriorityGateOptions) {}

  /** No work in hand and none waiting: the gate can be let go. */
  get idle(): boolean {
    return this.inHand === 0 && this.waiting.length === 0;
  }

  /** First-class work is in hand: `turn()` waits. */
  get shut(): boolean {
    return this.inHand > 0;
  }

  /** How long first-class work has held the gate shut, without its opening between; 0 when open. */
  get shutForMs(): number {
    return this.inHand > 0 && this.shutSince !== undefined ? Date.now() - this.shutSince : 0;
  }

  /** Runs first-class work; `turn()` waits while any is in hand. */
  async first<T>(work: () => Promise<T>): Promise<T> {
    clearTimeout(this.settling);
    this.shutSince ??= Date.now();
    this.inHand++;
    try {
      return await work();
    } finally {
      this.inHand--;
      if (!this.inHand) this.openWhenSettled();
    }
  }

  /** Resolves when no first-class work is in hand, or after `maxWaitMs`. */
  async turn(maxWaitMs = this.options.maxWaitMs): Promise<void> {
    if (!this.inHand) return;
    await new Promise<void>((resolve) => {
      const open = () => {
        clearTimeout(timer);
        resolve();
      };
      // A turn that times out leaves the list, so work that never pauses cannot grow it.
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((waiter) => waiter !== open);
        resolve();
      }, maxWaitMs);
      this.waiting.push(open);
    });
  }

  /** Lets the work waiting for its turn go now, first-class work in hand or not. */
  letWaitingGo(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const open of waiting) open();
  }

  private openWhenSettled(): void {
    if (!this.options.settleMs) return this.openIfIdle();
    this.settling = setTimeout(() => this.openIfIdle(), this.options.settleMs).unref();
  }

  private openIfIdle(): void {
    if (this.inHand) return;
    this.shutSince = undefined;
    this.letWaitingGo();
  }
}
