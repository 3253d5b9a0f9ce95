import { ChildProcess, fork } from 'node:child_process';
import { extname } from 'node:path';

/**
 * A Node process of its own that does one request at a time for us (an extraction, an answer's parse),
 * started on first use and again after it was ended. A process, not a worker thread: V8 ends the whole
 * process when a heap limit is reached inside its native code (JSON.parse of an object with a million keys,
 * a regular expression's matches), so a thread's limit took the connector down with it; a process's takes
 * only itself. It gets none of our environment: a file or answer that took its parser over finds no secret.
 */
export interface ProcessLaneOptions {
  /** The module the process runs (`serveRequests`): compiled, or TypeScript under ts-jest and ts-node. */
  entry: string;
  /** How long one request may take once it reached a loaded process. */
  timeoutMs: number;
  /** Its heap (old generation). */
  maxHeapMb: number;
  /** Its nice value (Linux), which it sets itself. */
  nice: number;
  /** How long it may sit idle before it is ended (IDLE_MS). */
  idleMs?: number;
  /** How the lane's failures read to its callers. */
  failures: LaneFailures;
}

export interface LaneFailures {
  timedOut(timeoutMs: number): Error;
  outOfMemory(maxHeapMb: number): Error;
  /** The request's own error, as the process reported it. */
  reported(message: string, name: string | undefined): Error;
  /** The process stopped for another reason, or could not be reached. */
  stopped(reason: string): Error;
  /** The process did not start: not the request's fault. */
  notStarted(reason: string): Error;
  /** The lane was closed (shutting down). */
  closed(): Error;
}

/** A process that has not said it is ready this long after it started is ended (a broken install, not a request). */
const BOOT_TIMEOUT_MS = 30_000;

/**
 * A process idle this long is ended, and its memory goes back (a parser's heap after a 16 MiB answer holds
 * about 130 MB); the next request starts another (about 0.1 s).
 */
const IDLE_MS = 60_000;

/** The end of a process's stderr kept to tell why it stopped (V8 prints its out-of-memory report there). */
const STDERR_TAIL_BYTES = 4096;

/** What the process says: `{ready}` once loaded, then for each request `{result}` or `{error, name}`. */
export type LaneMessage<R> = { ready: true } | { result: R } | { error: string; name?: string };

export class ProcessLane<Request, Result> {
  private child?: ChildProcess;
  private readonly stopping = new Set<Promise<void>>();
  private ready = false;
  private idle?: NodeJS.Timeout;
  private current?: {
    request: Request;
    resolve: (result: Result) => void;
    reject: (error: Error) => void;
    timer?: NodeJS.Timeout;
  };

  constructor(private readonly options: ProcessLaneOptions) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      clearTimeout(this.idle);
      this.current = { request, resolve, reject };
      const child = this.ensureChild();
      holdUp(child, true);
      if (this.ready) this.post(child);
    });
  }

  /** Ends the process; resolves once every process this lane started has gone. */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    this.settle(this.options.failures.closed());
    const child = this.child;
    this.child = undefined;
    void this.stop(child);
    await Promise.all(this.stopping);
  }

  /** The time limit starts when the request reaches a loaded process. */
  private post(child: ChildProcess): void {
    const job = this.current!;
    const { timeoutMs, failures } = this.options;
    job.timer = setTimeout(() => this.end(child, failures.timedOut(timeoutMs)), timeoutMs);
    child.send(job.request as object, (error) => {
      if (error) this.end(child, failures.stopped(error.message));
    });
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    const { failures } = this.options;
    const child = startChild(this.options);
    const stderr = tailOf(child);
    const boot = setTimeout(() => this.end(child, failures.stopped('it did not say it was ready')), BOOT_TIMEOUT_MS);
    child.on('message', (message: LaneMessage<Result>) => {
      if (this.child !== child) return;
      if ('ready' in message) {
        clearTimeout(boot);
        this.ready = true;
        if (this.current) this.post(child);
      } else if ('result' in message) this.settle(undefined, message.result);
      else this.settle(failures.reported(message.error, message.name));
    });
    child.on('error', (error) => this.end(child, failures.stopped(error.message)));
    // 'close', not 'exit': by then its stderr has been read to the end.
    child.on('close', (code, signal) => {
      clearTimeout(boot);
      this.end(child, this.stoppedBecause(code, signal, stderr()));
    });
    this.child = child;
    this.ready = false;
    return child;
  }

  /**
   * Why a process stopped on its own: its heap limit (V8's report on stderr), or the kernel's out-of-memory
   * killer (SIGKILL: the lane ends only processes it has already let go).
   */
  private stoppedBecause(code: number | null, signal: NodeJS.Signals | null, stderr: string): Error {
    const { failures, maxHeapMb } = this.options;
    if (signal === 'SIGKILL' || /heap out of memory|Reached heap limit/.test(stderr))
      return failures.outOfMemory(maxHeapMb);
    return failures.stopped(signal ?? `exit code ${code}`);
  }

  /** Fails the current request and ends its process, unless the process was already replaced. */
  private end(child: ChildProcess, error: Error): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.settle(this.ready ? error : this.options.failures.notStarted(error.message));
    void this.stop(child);
  }

  private settle(error: Error | undefined, result?: Result): void {
    const job = this.current;
    if (!job) return;
    this.current = undefined;
    clearTimeout(job.timer);
    if (this.child) this.letGo(this.child);
    if (error) job.reject(error);
    else job.resolve(result as Result);
  }

  /** Idle: it no longer holds our process up, and it ends once it has been idle for IDLE_MS. */
  private letGo(child: ChildProcess): void {
    holdUp(child, false);
    this.idle = setTimeout(() => {
      if (this.child !== child || this.busy) return;
      this.child = undefined;
      void this.stop(child);
    }, this.options.idleMs ?? IDLE_MS);
    this.idle.unref();
  }

  /** Ends `child` at once (SIGKILL stops it even inside native code); resolves once it has gone. */
  private stop(child: ChildProcess | undefined): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const stopped = new Promise<void>((gone) => child.once('exit', () => gone()));
    child.kill('SIGKILL');
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
    return stopped;
  }
}

/**
 * The process's limits: its heap, a young generation of about 8 MB (V8's default lets it grow to about 48
 * MB, most of it garbage between scavenges; docs/ingestion.md) and garbage collection on its one thread.
 */
function startChild({ entry, maxHeapMb, nice }: ProcessLaneOptions): ChildProcess {
  const typescript = extname(entry) === '.ts';
  const child = fork(entry, [], {
    execArgv: [
      `--max-old-space-size=${maxHeapMb}`,
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      '--single-threaded-gc',
      ...(typescript ? ['-r', require.resolve('ts-node/register/transpile-only')] : []),
    ],
    env: { LANE_NICE: String(nice), ...(typescript ? TYPESCRIPT_ENV : {}) },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  holdUp(child, false);
  return child;
}

/** V8 sizes the young generation at three semi-spaces. */
const SEMI_SPACE_MB = 3;

// The process compiles its TypeScript on its own, without the project's settings.
const TYPESCRIPT_ENV = {
  TS_NODE_SKIP_PROJECT: 'true',
  TS_NODE_COMPILER_OPTIONS: JSON.stringify({ module: 'commonjs', target: 'es2022', esModuleInterop: true }),
};

/** Whether the process keeps ours running: only while it has a request, so an idle lane never holds a process up. */
function holdUp(child: ChildProcess, busy: boolean): void {
  const handles = [child, child.channel] as Array<{ ref(): void; unref(): void } | null | undefined>;
  for (const handle of handles) {
    if (busy) handle?.ref();
    else handle?.unref();
  }
}

/** Reads `child`'s stderr as it comes, keeping its last few kilobytes. */
function tailOf(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  return () => tail;
}
