import { resolve } from 'node:path';
import { LaneFailures, ProcessLane } from './process-lane';

const ENTRY = resolve(__dirname, '../../test/support/echo-lane.ts');
type Echo = { echo?: string; pid: number };

const FAILURES: LaneFailures = {
  timedOut: (ms) => new Error(`timed out after ${ms} ms`),
  outOfMemory: (mb) => new Error(`out of memory (${mb} MB)`),
  reported: (message, name) => new Error(`${name}: ${message}`),
  stopped: (reason) => new Error(`stopped (${reason})`),
  notStarted: (reason) => new Error(`not started: ${reason}`),
  closed: () => new Error('closed'),
};

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe(ProcessLane.name, () => {
  let sut: ProcessLane<{ echo?: string; fail?: string }, Echo> | undefined;
  afterEach(() => sut?.close());

  const lane = (idleMs?: number) =>
    new ProcessLane<{ echo?: string; fail?: string }, Echo>({
      entry: ENTRY,
      timeoutMs: 10_000,
      maxHeapMb: 64,
      nice: 0,
      idleMs,
      failures: FAILURES,
    });

  it('answers each request in one process it keeps, and passes on the error a request ends with', async () => {
    sut = lane();
    const first = await sut.run({ echo: 'door D-12' });
    expect(first.echo).toBe('door D-12');
    await expect(sut.run({ fail: 'broken file' })).rejects.toThrow('AskedToFail: broken file');
    expect((await sut.run({ echo: 'again' })).pid).toBe(first.pid);
  }, 60_000);

  it('ends a process idle for its idle time, giving its memory back, and starts another for the next request', async () => {
    sut = lane(500);
    const { pid } = await sut.run({ echo: 'first' });
    await new Promise((wait) => setTimeout(wait, 1_500));
    expect(isRunning(pid)).toBe(false);
    const next = await sut.run({ echo: 'next' });
    expect(next).toEqual({ echo: 'next', pid: expect.any(Number) });
    expect(next.pid).not.toBe(pid);
  }, 60_000);
});
