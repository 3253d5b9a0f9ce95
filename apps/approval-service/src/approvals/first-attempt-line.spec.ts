import { DrainInstead, FirstAttemptLine } from './first-attempt-line';

describe('FirstAttemptLine', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  /** A first attempt that ends when told; records how it was sent. */
  const attempts = () => {
    const sent: Array<{ name: string; queued: boolean }> = [];
    const ends: Array<() => void> = [];
    const attempt = (name: string) => (queued: boolean) => {
      sent.push({ name, queued });
      return queued ? Promise.resolve() : new Promise<void>((end) => ends.push(end));
    };
    return { sent, ends, attempt };
  };

  it("gives the next lane to another tenant's attempt before the rest of a backlog", async () => {
    const line = new FirstAttemptLine({ lanes: 2, maxWaiting: 100, staleAfterMs: 60_000 });
    const { sent, ends, attempt } = attempts();
    for (let i = 0; i < 10; i++) await line.add('a', attempt(`a${i}`));
    await line.add('b', attempt('b0'));
    await settle();
    expect(sent.map((s) => s.name)).toEqual(['a0', 'a1']);
    expect(line.waitingHere).toBe(9);
    ends.shift()!();
    await settle();
    expect(sent.map((s) => s.name)).toEqual(['a0', 'a1', 'b0']);
    expect(sent.every((s) => !s.queued)).toBe(true);
  });

  it('sends an attempt through the fair share when the line is full, or once it waited too long', async () => {
    const line = new FirstAttemptLine({ lanes: 1, maxWaiting: 2, staleAfterMs: 50 });
    const { sent, ends, attempt } = attempts();
    await line.add('a', attempt('a0'));
    await line.add('a', attempt('a1'));
    await line.add('a', attempt('a2'));
    await line.add('a', attempt('a3'));
    await settle();
    expect(sent).toEqual([
      { name: 'a0', queued: false },
      { name: 'a3', queued: true },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    ends.shift()!();
    await settle();
    expect(sent[2]).toEqual({ name: 'a1', queued: true });
  });

  it('lets a request waiting for a lane go on draining when the drain starts', async () => {
    const line = new FirstAttemptLine({ lanes: 1, maxWaiting: 10, staleAfterMs: 60_000 });
    const drain = new AbortController();
    const first = line.inLane('a', () => new Promise<void>(() => undefined), drain.signal);
    const second = line.inLane('a', async () => 'ran', drain.signal);
    drain.abort();
    await expect(second).rejects.toBeInstanceOf(DrainInstead);
    void first;
  });

  it('sends what waits through the fair share once closing, and waits for what is in flight', async () => {
    const line = new FirstAttemptLine({ lanes: 1, maxWaiting: 10, staleAfterMs: 60_000 });
    const { sent, ends, attempt } = attempts();
    await line.add('a', attempt('a0'));
    await line.add('a', attempt('a1'));
    let closed = false;
    const closing = line.close().then(() => (closed = true));
    await line.add('a', attempt('a2'));
    expect(sent.find((s) => s.name === 'a2')).toEqual({ name: 'a2', queued: true });
    await settle();
    expect(closed).toBe(false);
    ends.shift()!();
    await closing;
    expect(sent.find((s) => s.name === 'a1')).toEqual({ name: 'a1', queued: true });
  });
});
