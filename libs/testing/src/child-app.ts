import { ChildProcess, fork } from 'node:child_process';
import { basename, resolve } from 'node:path';
import type { TestingModuleBuilder } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import type { ProcessRole } from '@app/config';
import { eventually } from './eventually';

const ROOT = resolve(__dirname, '../../..');

/** Children still running; should this process end before a test killed one, it ends with it. */
const running = new Set<ChildProcess>();
const killRunning = () => running.forEach((child) => child.kill('SIGKILL'));

/**
 * An app running in a child process (ts-node), so a test can SIGKILL it mid-work. `runner` is the app's
 * start script, relative to the repository root, which hands its start to `runAsChild`. With `logLines`,
 * its stdout (its log, at the env's LOG_LEVEL) is collected there line by line.
 */
export async function startChildApp(
  runner: string,
  env: Record<string, unknown>,
  role: ProcessRole = 'worker',
  extraEnv: Record<string, string> = {},
  logLines?: string[],
): Promise<ChildProcess> {
  const name = basename(runner, '.ts');
  const child = fork(resolve(ROOT, runner), [], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...extraEnv,
      PROCESS_ROLE: role,
      TEST_APP_ENV: JSON.stringify(env),
      TS_NODE_TRANSPILE_ONLY: 'true',
      TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json'),
    },
    execArgv: ['-r', 'ts-node/register', '-r', resolve(ROOT, 'scripts/register-paths.js')],
    stdio: ['ignore', logLines ? 'pipe' : 'ignore', 'pipe', 'ipc'],
  });
  if (running.size === 0) process.once('exit', killRunning);
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    if (running.size === 0) process.removeListener('exit', killRunning);
  });
  if (logLines) collectLines(child.stdout!, logLines);
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${name} child did not start in 150 s: ${stderr}`));
    }, 150_000);
    child.once('message', () => {
      clearTimeout(timer);
      ready();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} child exited with ${code}: ${stderr}`));
    });
  });
  return child;
}

/**
 * The child's side of startChildApp: starts the app with the configuration and role the parent gave
 * (TEST_APP_ENV, PROCESS_ROLE), then tells the parent it is ready; a failure to start ends the process.
 */
export function runAsChild(start: (env: Record<string, unknown>, role: ProcessRole) => Promise<void>): void {
  const env = JSON.parse(process.env.TEST_APP_ENV ?? '{}') as Record<string, unknown>;
  const role = (process.env.PROCESS_ROLE ?? 'worker') as ProcessRole;
  start(env, role)
    .then(() => process.send?.('ready'))
    .catch((error: Error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(1);
    });
}

/**
 * `runAsChild` for a Nest app: `build` gives the testing module (with any overrides); the app starts
 * without HTTP and logs through its pino logger, at the env's LOG_LEVEL (silent unless a test asks).
 */
export function runNestAppAsChild(
  build: (env: Record<string, unknown>, role: ProcessRole) => TestingModuleBuilder,
): void {
  runAsChild(async (env, role) => {
    const app = (await build(env, role).compile()).createNestApplication({ logger: false });
    app.useLogger(app.get(Logger));
    await app.init();
  });
}

/**
 * `runAsChild` for an app's own main.ts, started as in production (its signal handling included): the
 * configuration goes into process.env, `load` requires main, and the child is ready once GET /health/live
 * answers on 127.0.0.1 at the env's PORT (give it a free one: main.ts tells no one which port it took).
 */
export function runMainAsChild(load: () => unknown): void {
  runAsChild(async (env) => {
    for (const [name, value] of Object.entries(env)) process.env[name] = String(value);
    load();
    const live = `http://127.0.0.1:${String(env.PORT)}/health/live`;
    await eventually(async () => (await fetch(live)).ok, 140_000, 200);
  });
}

export async function killChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill(signal);
  });
}

function collectLines(stream: NodeJS.ReadableStream, lines: string[]): void {
  let partial = '';
  stream.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
  });
}
