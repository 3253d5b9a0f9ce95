import { AsyncResource } from 'node:async_hooks';
import { isInfrastructureError } from '@app/errors';

type Waiting<I, O> = { input: I; resolve: (output: O) => void; reject: (error: unknown) => void };

/**
 * Runs the calls that arrive together as one statement: under load, one database round trip and one
 * commit serve many approvals instead of one each. One statement of a kind runs at a time: the calls
 * that arrive while it runs wait for it and share the next, so under load the batches grow instead of the
 * statements in flight (docs/approval-performance.md). A batch that fails is run again one call at a
 * time, so a bad call fails only itself; one that failed because the database is unreachable fails every
 * call at once, those waiting behind it too, for their callers to hold and try again.
 * A batch serves callers of every tenant, so it runs in the async context the batcher was made in (at start-up:
 * no request's), never in that of the caller who came first: its statement takes no tenant's turn for a
 * connection (PoolTurns), and so never waits in the line of one tenant's flood.
 */
export class StatementBatcher<I, O> {
  private waiting: Array<Waiting<I, O>> = [];
  private scheduled = false;
  private running = false;
  private readonly home = new AsyncResource('StatementBatcher');

  constructor(
    private readonly runBatch: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
    /** Wraps each run of a batch: how a caller's statements ride out an outage of the database. */
    private readonly hold: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** The next batch starts at the end of this turn of the event loop, or when the running one ends. */
  private schedule(): void {
    if (this.scheduled || this.running || !this.waiting.length) return;
    this.scheduled = true;
    setImmediate(() =>
      this.home.runInAsyncScope(() => {
        this.scheduled = false;
        void this.next();
      }),
    );
  }

  private async next(): Promise<void> {
    if (this.running || !this.waiting.length) return;
    this.running = true;
    try {
      await this.run(this.waiting.splice(0, this.maxBatch));
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  private async run(batch: Array<Waiting<I, O>>): Promise<void> {
    try {
      const outputs = await this.hold(() => this.runBatch(batch.map((w) => w.input)));
      batch.forEach((w, i) => w.resolve(outputs[i]));
    } catch (error) {
      if (isInfrastructureError(error)) return [...batch, ...this.waiting.splice(0)].forEach((w) => w.reject(error));
      if (batch.length === 1) return batch[0].reject(error);
      for (const waiting of batch) await this.run([waiting]);
    }
  }
}
