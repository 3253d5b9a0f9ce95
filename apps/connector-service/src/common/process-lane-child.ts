import { ChildProcess, fork } from 'node:child_process';
import { extname } from 'node:path';

// What a lane's process is and says, as ProcessLane starts, hears and lets go of it.

/** Of ProcessLaneOptions, what its process starts with. */
type ChildOptions = { entry: string; maxHeapMb: number; nice: number };

/** The end of a process's stderr kept to tell why it stopped (V8 prints its out-of-memory report there). */
const STDERR_TAIL_BYTES = 4096;

/** What the process says: `{ready}` once loaded, then for each request `{result}` or `{error, name}`. */
export type LaneMessage<R> = { ready: true } | { result: R } | { error: string; name?: string };

/**
 * The process's limits: its heap, a young generation of about 8 MB (V8's default lets it grow to about 48
 * MB, most of it garbage between scavenges; docs/ingestion.md) and garbage collection on its one thread.
 */
export function startChild({ entry, maxHeapMb, nice }: ChildOptions): ChildProcess {
  const typescript = extname(entry) === '.ts';
  const child = fork(entry, [], {
    execArgv: [
      `--max-old-space-size=${maxHeapMb}`,
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      '--single-threaded-gc',
      ...(typescript ? ['-r', require.resolve('ts-node/register/transpile-only')] : []),
    ],
    env: { LANE_NICE: String(nice), LANE_PARENT: String(process.pid), ...(typescript ? TYPESCRIPT_ENV : {}) },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  holdUp(child, false);
  return child;
}

/** The most of a process's own error message passed on (it may end up in a document's `extraction.error`). */
export const MAX_REPORTED_CHARS = 500;

/**
 * A process's message when it is one it may send now: `{ready}` once, before anything else; then `{result}`
 * or `{error, name}` (strings) only while it has a request. Anything else: null.
 */
export function heard<R>(message: unknown, ready: boolean, asked: boolean): LaneMessage<R> | null {
  if (typeof message !== 'object' || message === null) return null;
  if ('ready' in message) return ready ? null : { ready: true };
  if (!ready || !asked) return null;
  if ('result' in message) return { result: message.result as R };
  const { error, name } = message as { error?: unknown; name?: unknown };
  if (typeof error !== 'string') return null;
  return { error, name: typeof name === 'string' ? name : undefined };
}

export function stopLimits(job: { timer?: NodeJS.Timeout; unwatch?: () => void }): void {
  clearTimeout(job.timer);
  job.unwatch?.();
}

export function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null && child.connected;
}

/** V8 sizes the young generation at three semi-spaces. */
const SEMI_SPACE_MB = 3;

// The process compiles its TypeScript on its own, without the project's settings.
const TYPESCRIPT_ENV = {
  TS_NODE_SKIP_PROJECT: 'true',
  TS_NODE_COMPILER_OPTIONS: JSON.stringify({ module: 'commonjs', target: 'es2022', esModuleInterop: true }),
};

/** Whether the process keeps ours running: only while it has a request, so an idle lane never holds a process up. */
export function holdUp(child: ChildProcess, busy: boolean): void {
  const handles = [child, child.channel] as Array<{ ref(): void; unref(): void } | null | undefined>;
  for (const handle of handles) {
    if (busy) handle?.ref();
    else handle?.unref();
  }
}

/** Reads `child`'s stderr as it comes, keeping its last few kilobytes. */
export function tailOf(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  return () => tail;
}
