import { isInfrastructureError } from '@app/errors';

type Waiting<I, O> = { input: I; resolve: (output: O) => void; reject: (error: unknown) => void };

/**
 * Runs the calls that arrive within one turn of the event loop as one statement: under load, one
 * database round trip and one commit serve many approvals instead of one each. A batch that fails is
 * run again one call at a time, so a bad call fails only itself; one that failed because the database
 * is unreachable fails every call at once, for their callers to hold and try again.
 */
export class StatementBatcher<I, O> {
  private waiting: Array<Waiting<I, O>> = [];
  private scheduled = false;

  constructor(
    private readonly runBatch: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
    /** Wraps each run of a batch: how a caller's statements ride out an outage of the database. */
    private readonly hold: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.waiting.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting.splice(0, this.maxBatch);
    if (batch.length) void this.run(batch);
    if (this.waiting.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private async run(batch: Array<Waiting<I, O>>): Promise<void> {
    try {
      const outputs = await this.hold(() => this.runBatch(batch.map((w) => w.input)));
      batch.forEach((w, i) => w.resolve(outputs[i]));
    } catch (error) {
      if (batch.length === 1 || isInfrastructureError(error)) return batch.forEach((w) => w.reject(error));
      for (const waiting of batch) await this.run([waiting]);
    }
  }
}
