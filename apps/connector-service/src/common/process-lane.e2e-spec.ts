import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { LaneFailures, ProcessLane } from './process-lane';

const ENTRY = resolve(__dirname, '../../test/support/echo-lane.ts');
type Echo = { echo?: string; pid: number };
const ROOT = resolve(__dirname, '../../../..');

const FAILURES: LaneFailures = {
  timedOut: (ms) => new Error(`timed out after ${ms} ms`),
  outOfMemory: (mb) => new Error(`out of memory (${mb} MB)`),
  reported: (message, name) => new Error(`${name}: ${message}`),
  stopped: (reason) => new Error(`stopped (${reason})`),
  killed: () => new Error('killed'),
  notStarted: (reason) => new Error(`not started: ${reason}`),
  closed: () => new Error('closed'),
};

/** Whether the process runs (a zombie, ended and not yet reaped by whoever adopted it, does not). */
const isRunning = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

describe(ProcessLane.name, () => {
  let sut: ProcessLane<{ echo?: string; fail?: string; spinMs?: number }, Echo> | undefined;
  afterEach(() => sut?.close());

  const lane = (idleMs?: number) =>
    new ProcessLane<{ echo?: string; fail?: string; spinMs?: number }, Echo>({
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

  it('ends a busy process whose parent was killed, within seconds, not when its work is done', async () => {
    const parent = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'apps/connector-service/test/support/lane-then-hang.ts'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json') },
      },
    );
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    expect(isRunning(pid)).toBe(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    const deadline = Date.now() + 5_000;
    while (isRunning(pid) && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 100));
    expect(isRunning(pid)).toBe(false);
  }, 60_000);

  it('resolves close once its process has gone, even with nothing else holding ours up', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'apps/connector-service/test/support/lane-then-close.ts'],
      { cwd: ROOT, timeout: 30_000, env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json') } },
    );
    expect(stdout).toBe('closed');
  }, 60_000);

  it('fails a request whose process is killed from outside as not its own fault', async () => {
    sut = lane();
    const { pid } = await sut.run({ echo: 'first' });
    const busy = sut.run({ spinMs: 10_000 });
    await new Promise((wait) => setTimeout(wait, 300));
    process.kill(pid, 'SIGKILL');
    await expect(busy).rejects.toThrow('killed');
  }, 60_000);
});
