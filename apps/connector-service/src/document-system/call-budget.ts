/** A folder-picker request ran out of document-system calls or time (CONTRACT.md, fair share). */
export class CallBudgetSpent extends Error {
  constructor(budget: CallBudget) {
    super(`the bound of ${budget.maxCalls} document-system calls within ${budget.maxMs / 1000} s was reached`);
  }
}

/**
 * The calls one request may make to a document system, and the time they may take: every HTTP exchange
 * counts (a retry, a new session), and calls in flight at the deadline are aborted.
 */
export class CallBudget {
  readonly signal: AbortSignal;
  private calls = 0;
  private readonly deadline: number;

  constructor(
    readonly maxCalls: number,
    readonly maxMs: number,
  ) {
    this.deadline = Date.now() + maxMs;
    this.signal = AbortSignal.timeout(maxMs);
  }

  get used(): number {
    return this.calls;
  }

  get spent(): boolean {
    return this.calls >= this.maxCalls || Date.now() >= this.deadline;
  }

  /** Counts one call, or throws CallBudgetSpent when none is left. */
  take(): void {
    if (this.spent) throw new CallBudgetSpent(this);
    this.calls++;
  }

  /** `work`, or CallBudgetSpent once the deadline passes first. */
  within<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(new CallBudgetSpent(this));
    return new Promise<T>((resolve, reject) => {
      const expired = () => reject(new CallBudgetSpent(this));
      this.signal.addEventListener('abort', expired, { once: true });
      work.then(resolve, reject).finally(() => this.signal.removeEventListener('abort', expired));
    });
  }
}
