import type { ChildProcess } from 'node:child_process';
import { watchMemory } from './process-memory';
import { heard, holdUp, isAlive, MAX_REPORTED_CHARS, startChild, stopLimits, tailOf } from './process-lane-child';

/**
 * A Node process of its own that does one request at a time for us (an extraction, an answer's parse),
 * started on first use (or ahead of it: `warm`) and again after it was ended. A process, not a worker
 * thread: V8 ends the whole process when a heap limit is reached inside its native code (JSON.parse of an
 * object with a million keys, a regular expression's matches), so a thread's limit took the connector down
 * with it; a process's takes only itself. It is not handed our environment (no database URL, no key); it
 * runs as our user, though, so this is less exposure, not a wall.
 */
export interface ProcessLaneOptions {
  /** The module the process runs (`serveRequests`): compiled, or TypeScript under ts-jest and ts-node. */
  entry: string;
  /** How long one request may take once it reached a loaded process. */
  timeoutMs: number;
  /** Its heap (old generation). */
  maxHeapMb: number;
  /** All its memory (resident, read on Linux while it has a request); by default `maxHeapMb` + OUTSIDE_HEAP_MB. */
  maxMemoryMb?: number;
  /** Its nice value (Linux), which it sets itself. */
  nice: number;
  /** How long it may sit idle before it is ended (IDLE_MS). */
  idleMs?: number;
  /** How the lane's failures read to its callers. */
  failures: LaneFailures;
}

export interface LaneFailures {
  timedOut(timeoutMs: number): Error;
  /** Past its heap or its memory limit: named by its heap, the one setting of both. */
  outOfMemory(maxHeapMb: number): Error;
  /** The request's own error, as the process reported it. */
  reported(message: string, name: string | undefined): Error;
  /** The process ended for another reason while it had the request (an exit code, a signal). */
  stopped(reason: string): Error;
  /** The process was ended from outside (SIGKILL: the kernel's out-of-memory killer, an operator): not the request's fault. */
  killed(): Error;
  /** The process did not start: not the request's fault. */
  notStarted(reason: string): Error;
  /** The lane was closed (shutting down). */
  closed(): Error;
}

/** A process that has not said it is ready this long after it started is ended (a broken install, not a request). */
const BOOT_TIMEOUT_MS = 30_000;

/**
 * A process idle this long is ended, and its memory goes back (a parser process held about 130 MB after a
 * costly 6 MB answer); the next request starts another (about 0.1 s).
 */
const IDLE_MS = 60_000;

/**
 * What a process may hold besides its heap: itself, its young generation, and a request's bytes with their
 * copies (a file of up to 50 MB), measured in docs/ingestion.md. Typed arrays and buffers lie outside the
 * heap, so only this limit holds a file whose streams inflate in them (a PDF's pages and fonts in pdf.js).
 */
const OUTSIDE_HEAP_MB = 192;

export class ProcessLane<Request, Result> {
  private child?: ChildProcess;
  private readonly stopping = new Set<Promise<void>>();
  private ready = false;
  private idle?: NodeJS.Timeout;
  private closing = false;
  private current?: {
    request: Request;
    resolve: (result: Result) => void;
    reject: (error: Error) => void;
    timer?: NodeJS.Timeout;
    unwatch?: () => void;
    /** Sent again once already, to a new process, after its first was ended from outside. */
    again?: true;
  };

  constructor(private readonly options: ProcessLaneOptions) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(request: Request): Promise<Result> {
    if (this.closing) return Promise.reject(this.options.failures.closed());
    return new Promise<Result>((resolve, reject) => {
      clearTimeout(this.idle);
      this.current = { request, resolve, reject };
      const child = this.ensureChild();
      holdUp(child, true);
      if (this.ready) this.post(child);
    });
  }

  /**
   * Starts the process ahead of a request, so the next one does not wait for it to load (0.1 s compiled,
   * seconds under ts-node on a busy machine). Unused, it ends after its idle time like any idle process.
   */
  warm(): void {
    if (this.closing || this.busy || (this.child && isAlive(this.child))) return;
    holdUp(this.ensureChild(), false);
  }

  /** Ends the process; resolves once every process this lane started has gone. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.idle);
    this.settle(this.options.failures.closed());
    const child = this.child;
    this.child = undefined;
    void this.stop(child);
    await Promise.all(this.stopping);
  }

  /** The time and memory limits start when the request reaches a loaded process. */
  private post(child: ChildProcess): void {
    const job = this.current!;
    const { timeoutMs, maxHeapMb, maxMemoryMb = maxHeapMb + OUTSIDE_HEAP_MB, failures } = this.options;
    job.timer = setTimeout(() => this.end(child, failures.timedOut(timeoutMs)), timeoutMs);
    job.unwatch = watchMemory(child.pid, maxMemoryMb, () => this.end(child, failures.outOfMemory(maxHeapMb)));
    // A process that cannot be reached (it was just killed) is not the request's fault.
    child.send(job.request as object, (error) => {
      if (error) this.end(child, failures.notStarted(error.message), error.message, true);
    });
  }

  private ensureChild(): ChildProcess {
    if (this.child && isAlive(this.child)) return this.child;
    // One that ended while idle (killed from outside) may not have closed yet: it is not given the request.
    if (this.child) void this.stop(this.child);
    const { failures } = this.options;
    const child = startChild(this.options);
    const stderr = tailOf(child);
    const boot = setTimeout(() => {
      const reason = `it did not say it was ready within ${BOOT_TIMEOUT_MS / 1000} s`;
      this.end(child, failures.notStarted(reason), reason);
    }, BOOT_TIMEOUT_MS);
    // What a process says is not trusted: one whose parser a file took over may say anything, at any time.
    child.on('message', (message: unknown) => {
      if (this.child !== child) return;
      const said = heard<Result>(message, this.ready, this.current !== undefined);
      if (!said) return this.end(child, failures.stopped('it said something out of turn'));
      if ('ready' in said) {
        clearTimeout(boot);
        this.ready = true;
        if (this.current) this.post(child);
        else this.letGo(child); // started ahead (warm)
      } else if ('result' in said) this.settle(undefined, said.result);
      else this.settle(failures.reported(said.error.slice(0, MAX_REPORTED_CHARS), said.name));
    });
    child.on('error', (error) => this.end(child, failures.stopped(error.message)));
    // 'close', not 'exit': by then its stderr has been read to the end.
    child.on('close', (code, signal) => {
      clearTimeout(boot);
      const { error, fromOutside } = this.stoppedBecause(code, signal, stderr());
      this.end(child, error, error.message, fromOutside);
    });
    this.child = child;
    this.ready = false;
    return child;
  }

  /**
   * Why a process stopped on its own: its heap limit (V8's report on stderr), or something else. A SIGKILL
   * it did not get from the lane (which kills only processes it has let go) came from outside, the kernel's
   * out-of-memory killer or an operator, and says nothing of the request.
   */
  private stoppedBecause(
    code: number | null,
    signal: NodeJS.Signals | null,
    stderr: string,
  ): { error: Error; fromOutside: boolean } {
    const { failures, maxHeapMb } = this.options;
    if (/heap out of memory|Reached heap limit|invalid size error/.test(stderr))
      return { error: failures.outOfMemory(maxHeapMb), fromOutside: false };
    if (signal === 'SIGKILL') return { error: failures.killed(), fromOutside: true };
    return { error: failures.stopped(signal ?? `exit code ${code}`), fromOutside: false };
  }

  /**
   * Fails the current request and ends its process, unless the process was already replaced. Before the
   * process said it was ready, the request fails as not started (`reason`): it was never read. A request
   * whose process was ended from outside (`fromOutside`: killed, or gone before it could be sent) goes once
   * to a new process: an idle process killed a moment before was not seen to go yet.
   */
  private end(child: ChildProcess, error: Error, reason = error.message, fromOutside = false): void {
    if (this.child !== child) return;
    this.child = undefined;
    void this.stop(child);
    const job = this.current;
    if (fromOutside && job && !job.again && !this.closing) {
      job.again = true;
      stopLimits(job);
      holdUp(this.ensureChild(), true);
      return;
    }
    this.settle(this.ready ? error : this.options.failures.notStarted(reason));
  }

  private settle(error: Error | undefined, result?: Result): void {
    const job = this.current;
    if (!job) return;
    this.current = undefined;
    stopLimits(job);
    if (this.child && !this.closing) this.letGo(this.child);
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

  /**
   * Ends `child` at once (SIGKILL stops it even inside native code); resolves once it has gone. Until then it
   * holds our process up, so that a close can wait for it.
   */
  private stop(child: ChildProcess | undefined): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const stopped = new Promise<void>((gone) => child.once('exit', () => gone()));
    holdUp(child, true);
    child.kill('SIGKILL');
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
    return stopped;
  }
}
