import { CallShares, ShareWaitAborted } from './call-shares';

const never = () => new AbortController().signal;

/** Resolves with which of `calls` have their share once pending promise callbacks have run. */
async function started(calls: Array<Promise<unknown>>): Promise<boolean[]> {
  const done = calls.map(() => false);
  calls.forEach((call, i) => call.then(() => (done[i] = true)).catch(() => undefined));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe(CallShares.name, () => {
  it("lets another tenant's call through at once while one tenant's calls wait in its own line", async () => {
    const sut = new CallShares(2);
    const a = [sut.take('a', never()), sut.take('a', never()), sut.take('a', never()), sut.take('a', never())];
    const b = sut.take('b', never());

    expect(await started([...a, b])).toEqual([true, true, false, false, true]);
    (await a[0])();
    expect(await started(a)).toEqual([true, true, true, false]);
  });

  it('takes out of the line a call whose signal aborts while it waits, and gives the share to the next', async () => {
    const sut = new CallShares(1);
    const first = await sut.take('a', never());
    const deadline = new AbortController();
    const late = sut.take('a', deadline.signal);
    const next = sut.take('a', never());

    deadline.abort();
    await expect(late).rejects.toBeInstanceOf(ShareWaitAborted);
    first();
    first(); // given back once only
    expect(await started([next, sut.take('a', never())])).toEqual([true, false]);
  });

  it('refuses at once a call whose signal has aborted already', async () => {
    await expect(new CallShares(1).take('a', AbortSignal.abort())).rejects.toBeInstanceOf(ShareWaitAborted);
  });
});
