import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../../..');

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startChildApp', () => {
  // A test that loses track of a child (or fails before killing it) must not leave an app running after the run.
  it('ends the children a test process started when that process ends, even ones it forgot to kill', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        './scripts/register-paths.js',
        'libs/testing/src/fixtures/parent-that-exits.ts',
      ],
      { cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json') } },
    );
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    try {
      await eventually(() => !isRunning(pid), 5000);
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60000);
});
