import { ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/**
 * An app running in a child process (ts-node), so a test can SIGKILL it mid-work. With `logLines`, its
 * stdout (its log, at the env's LOG_LEVEL) is collected there line by line.
 */
export async function startChildApp(
  app: 'approval-service' | 'connector-service' | 'document-system-simulator',
  env: Record<string, unknown>,
  role = 'worker',
  extraEnv: Record<string, string> = {},
  logLines?: string[],
): Promise<ChildProcess> {
  const child = fork(resolve(ROOT, 'test/support/run-app.ts'), [], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...extraEnv,
      APP: app,
      PROCESS_ROLE: role,
      TEST_APP_ENV: JSON.stringify(env),
      TS_NODE_TRANSPILE_ONLY: 'true',
      TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json'),
    },
    execArgv: ['-r', 'ts-node/register', '-r', resolve(ROOT, 'scripts/register-paths.js')],
    stdio: ['ignore', logLines ? 'pipe' : 'ignore', 'pipe', 'ipc'],
  });
  if (logLines) collectLines(child.stdout!, logLines);
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`${app} child did not start in 150 s: ${stderr}`)), 150_000);
    child.once('message', () => {
      clearTimeout(timer);
      ready();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${app} child exited with ${code}: ${stderr}`));
    });
  });
  return child;
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
