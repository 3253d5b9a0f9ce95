import { AsyncLocalStorage } from 'node:async_hooks';
import { StatementBatcher } from './statement-batcher';

describe('StatementBatcher', () => {
  it('runs the calls of one turn of the event loop as one batch, each caller getting its own answer', async () => {
    const batches: number[][] = [];
    const sut = new StatementBatcher(async (inputs: number[]) => {
      batches.push(inputs);
      return inputs.map((n) => n * 10);
    });

    const answers = await Promise.all([1, 2, 3].map((n) => sut.submit(n)));

    expect(answers).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('splits what exceeds the largest batch', async () => {
    const batches: number[][] = [];
    const sut = new StatementBatcher(async (inputs: number[]) => {
      batches.push(inputs);
      return inputs;
    }, 2);

    await Promise.all([1, 2, 3, 4, 5].map((n) => sut.submit(n)));

    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('when a batch fails, runs its calls one by one so that only the bad call fails', async () => {
    const sut = new StatementBatcher(async (inputs: number[]) => {
      if (inputs.includes(13)) throw new Error('bad input 13');
      return inputs.map((n) => n + 1);
    });

    const results = await Promise.allSettled([12, 13, 14].map((n) => sut.submit(n)));

    expect(results).toEqual([
      { status: 'fulfilled', value: 13 },
      { status: 'rejected', reason: new Error('bad input 13') },
      { status: 'fulfilled', value: 15 },
    ]);
  });

  it('when the database is unreachable, fails the whole batch at once instead of one call at a time', async () => {
    let runs = 0;
    const sut = new StatementBatcher(async () => {
      runs++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });

    const results = await Promise.allSettled([1, 2, 3].map((n) => sut.submit(n)));

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(runs).toBe(1);
  });

  it('runs one statement at a time: the calls that arrive meanwhile wait for it and go together in the next', async () => {
    const batches: number[][] = [];
    let finishFirst!: () => void;
    const first = new Promise<void>((resolve) => (finishFirst = resolve));
    const sut = new StatementBatcher(async (inputs: number[]) => {
      batches.push(inputs);
      if (batches.length === 1) await first;
      return inputs;
    });

    const answers = [sut.submit(1)];
    await new Promise((resolve) => setImmediate(resolve));
    answers.push(sut.submit(2));
    await new Promise((resolve) => setImmediate(resolve));
    answers.push(sut.submit(3));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);

    finishFirst();
    expect(await Promise.all(answers)).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('when the database is unreachable, fails the calls waiting behind the batch with it, not after a hold of their own', async () => {
    let runs = 0;
    let failFirst!: () => void;
    const first = new Promise<void>((resolve) => (failFirst = resolve));
    const sut = new StatementBatcher(async () => {
      runs++;
      await first;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });

    const running = sut.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = [sut.submit(2), sut.submit(3)];
    await new Promise((resolve) => setImmediate(resolve));
    failFirst();

    const results = await Promise.allSettled([running, ...waiting]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(runs).toBe(1);
  });

  it("runs every batch outside its callers' async context, the batches that follow one too", async () => {
    const tenants = new AsyncLocalStorage<string>();
    const seenBy: Array<string | undefined> = [];
    let finishFirst!: () => void;
    const first = new Promise<void>((resolve) => (finishFirst = resolve));
    const sut = new StatementBatcher(async (inputs: string[]) => {
      seenBy.push(tenants.getStore());
      if (seenBy.length === 1) await first;
      return inputs;
    });

    const answers = [tenants.run('tenant-a', () => sut.submit('a'))];
    await new Promise((resolve) => setImmediate(resolve));
    answers.push(
      sut.submit('callback'),
      tenants.run('tenant-b', () => sut.submit('b')),
    );
    finishFirst();

    expect(await Promise.all(answers)).toEqual(['a', 'callback', 'b']);
    expect(seenBy).toEqual([undefined, undefined]); // before: ['tenant-a', 'tenant-a'], both in A's line
  });
});
