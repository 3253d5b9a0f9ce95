import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** A process that connects to a Redis that is down, ends the connection once it waits to reconnect, and then has nothing left to do. */
function exitAfterDisconnect(withThisLibrary: boolean): Promise<number> {
  const script = `
    const { Redis } = require('ioredis');
    ${withThisLibrary ? "require('@app/redis');" : ''}
    const down = new Redis('redis://127.0.0.1:1', { retryStrategy: () => 60000, maxRetriesPerRequest: 0 });
    down.on('error', () => undefined);
    const wait = setInterval(() => {
      if (down.status !== 'reconnecting') return;
      clearInterval(wait);
      down.disconnect();
      process.stdout.write('ended');
    }, 10);`;
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', resolve(ROOT, 'scripts/register-paths.js'), '-e', script],
    { cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json') } },
  );
  return new Promise((done, fail) => {
    let endedAt = 0;
    child.stdout.on('data', () => (endedAt = Date.now()));
    child.once('exit', () => (endedAt ? done(Date.now() - endedAt) : fail(new Error('the connection was not ended'))));
  });
}

describe('promptDisconnects', () => {
  it("with @app/redis loaded, a connection to a Redis that is down ends at once: its process exits without ioredis's 2 s wait", async () => {
    expect(await exitAfterDisconnect(true)).toBeLessThan(1000);
  }, 30_000);

  it('(without it, ioredis waits the 2 s)', async () => {
    expect(await exitAfterDisconnect(false)).toBeGreaterThanOrEqual(1900);
  }, 30_000);
});
