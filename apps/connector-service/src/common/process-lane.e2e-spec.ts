import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Echo, EchoRequest, echoLane } from '../../test/support/echo-lane.options';
import { isRunning } from '../../test/support/processes';
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
