import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Echo, EchoRequest, echoLane } from '../../test/support/echo-lane.options';
import { eventually } from '@app/testing';
import { childrenOf, isRunning } from '../../test/support/processes';
import { ProcessLane } from './process-lane';

const ROOT = resolve(__dirname, '../../../..');

describe(ProcessLane.name, () => {
  let sut: ProcessLane<EchoRequest, Echo> | undefined;
  afterEach(() => sut?.close());

  const lane = (idleMs?: number) => echoLane({ idleMs });

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

  it('starts its process ahead of a request when asked to warm up, and the next request goes to that process', async () => {
    sut = lane();
    sut.warm();
    const [started] = await eventually(() => {
      const children = childrenOf(process.pid, 'echo-lane');
      return children.length > 0 && children;
    }, 30_000);
    sut.warm(); // already started: no second process
    expect((await sut.run({ echo: 'door D-12' })).pid).toBe(started);
    expect(childrenOf(process.pid, 'echo-lane')).toEqual([started]);
  }, 60_000);

  it('ends a process started ahead that got no request once it has been idle for its idle time', async () => {
    sut = lane(500);
    sut.warm();
    const [started] = await eventually(() => {
      const children = childrenOf(process.pid, 'echo-lane');
      return children.length > 0 && children;
    }, 30_000);
    await eventually(() => !isRunning(started), 10_000);
    expect(childrenOf(process.pid, 'echo-lane')).toEqual([]);
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
    try {
      expect(isRunning(pid)).toBe(true);
      parent.kill('SIGKILL');
      await once(parent, 'exit');
      // Seconds, not the minute of its work; its watchdog runs at the lane's low priority, so a machine busy
      // with other suites may hold it back several seconds.
      const deadline = Date.now() + 20_000;
      while (isRunning(pid) && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 100));
      expect(isRunning(pid)).toBe(false);
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);

  it('resolves close once its process has gone, even with nothing else holding ours up', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'apps/connector-service/test/support/lane-then-close.ts'],
      { cwd: ROOT, timeout: 30_000, env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json') } },
    );
    expect(stdout).toBe('closed');
  }, 60_000);

  it('sends a request whose process is killed from outside once more; killed again, it fails as not its own fault', async () => {
    sut = lane();
    const { pid } = await sut.run({ echo: 'first' });
    const busy = sut.run({ spinMs: 10_000 });
    await new Promise((wait) => setTimeout(wait, 300));
    process.kill(pid, 'SIGKILL');
    let again: number | undefined;
    for (const until = Date.now() + 10_000; !again && Date.now() < until;) {
      await new Promise((wait) => setTimeout(wait, 50));
      again = childrenOf(process.pid, 'echo-lane').find((child) => child !== pid);
    }
    await new Promise((wait) => setTimeout(wait, 500)); // loaded, and given the request again
    process.kill(again!, 'SIGKILL');
    await expect(busy).rejects.toThrow(/^(killed|not started)/); // either way not the request's fault
  }, 60_000);

  it('sends a request once more, to a new process, when its process is killed from outside the moment it is sent', async () => {
    sut = lane();
    const { pid } = await sut.run({ echo: 'first' });
    process.kill(pid, 'SIGKILL');
    const next = await sut.run({ echo: 'next' });
    expect(next.echo).toBe('next');
    expect(next.pid).not.toBe(pid);
  }, 60_000);

  it('refuses a request once it is closed, rather than start a process nothing would end', async () => {
    sut = lane();
    await sut.run({ echo: 'first' });
    await sut.close();
    await expect(sut.run({ echo: 'late' })).rejects.toThrow('closed');
  }, 60_000);

  it('sets its nice value on every thread of its process', async () => {
    sut = echoLane({ nice: 7 });
    const { pid } = await sut.run({ echo: 'x' });
    const nice = readdirSync(`/proc/${pid}/task`).map((task) => {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[16]);
    });
    expect(nice.length).toBeGreaterThan(1);
    expect(new Set(nice)).toEqual(new Set([7]));
  }, 60_000);

  it.each([
    ['a string', 'x'],
    ['nothing', null],
    ['a second ready', { ready: true }],
    ['an error that is no string', { error: 42 }],
  ])(
    'ends a process that says %s out of turn, fails its request, and serves the next in a new one',
    async (_what, outOfTurn) => {
      sut = lane();
      const { pid } = await sut.run({ echo: 'first' });
      await expect(sut.run({ echo: 'rogue', outOfTurn })).rejects.toThrow('stopped (it said something out of turn)');
      const next = await sut.run({ echo: 'next' });
      expect(next.echo).toBe('next');
      expect(next.pid).not.toBe(pid);
    },
    60_000,
  );

  it("passes on at most 500 characters of a process's own error", async () => {
    sut = lane();
    await expect(sut.run({ fail: 'x'.repeat(10_000) })).rejects.toThrow(new Error(`AskedToFail: ${'x'.repeat(500)}`));
  }, 60_000);
});
