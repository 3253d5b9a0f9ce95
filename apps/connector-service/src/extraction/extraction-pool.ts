import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorkerThread, StoppingThreads } from '../common/worker-thread';
import { ExtractedText, ExtractionKind, ReadTextRequest, TEXT_TOO_LARGE } from './read-text';

export interface ExtractionPoolOptions {
  /** Worker threads; by default one per core. */
  threads?: number;
  /** How long one file may take before its thread is ended. */
  timeoutMs?: number;
  /** Heap each thread may use before it is ended. */
  maxHeapMb?: number;
  /** Most text (UTF-8) one file may give. */
  maxTextBytes?: number;
  /** The threads' nice value: they yield the CPU to the event loop and the database. */
  nice?: number;
}

export const EXTRACTION_DEFAULTS = { timeoutMs: 60_000, maxHeapMb: 256, maxTextBytes: 16 * 1024 * 1024, nice: 10 };

/** The file went past a limit (time, memory, text): the message is the reason to show. */
export class ExtractionLimitExceeded extends Error {}

/** No thread could read the file (the pool was closed, or a thread did not start): not the file's fault, so try it again later. */
export class ExtractionUnavailable extends Error {}

interface Job {
  request: ReadTextRequest;
  /** Whose file it is (a tenant): files of different owners take turns for the threads. */
  owner: string;
  resolve: (extracted: ExtractedText) => void;
  reject: (error: Error) => void;
}

/**
 * Text extraction of every format in a few worker threads, one file at a time on each: a file waits for
 * the first free thread, and owners (tenants) take turns for it, so one tenant's backlog does not keep
 * another's file waiting. A file that takes too long or needs more heap than allowed ends
 * its own thread (started again for the next file) and fails only itself; the event loop never reads a file.
 */
export class ExtractionPool {
  private readonly queue: Job[] = [];
  /** Files on the threads, by owner. */
  private readonly running = new Map<string, number>();
  /** When each owner with files here last had one started (a count of starts). */
  private readonly lastStarted = new Map<string, number>();
  private started = 0;
  private readonly threads: ExtractionThread[];
  private readonly maxTextBytes: number;
  private closed = false;

  constructor({
    threads = availableParallelism(),
    maxTextBytes = EXTRACTION_DEFAULTS.maxTextBytes,
    ...limits
  }: ExtractionPoolOptions = {}) {
    this.maxTextBytes = maxTextBytes;
    this.threads = Array.from(
      { length: Math.max(1, threads) },
      () => new ExtractionThread({ ...EXTRACTION_DEFAULTS, ...limits }),
    );
  }

  extract(kind: ExtractionKind, content: Buffer, owner = ''): Promise<ExtractedText> {
    // Shutting down: a job that gets here now is tried again later, not given a thread started after the close.
    if (this.closed) return Promise.reject(new ExtractionUnavailable('extractor closed'));
    return new Promise<ExtractedText>((resolve, reject) => {
      this.queue.push({ request: { kind, content, maxTextBytes: this.maxTextBytes }, owner, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new ExtractionUnavailable('extractor closed'));
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (this.queue.length === 0) return;
      if (thread.busy) continue;
      const job = this.takeNext();
      this.running.set(job.owner, (this.running.get(job.owner) ?? 0) + 1);
      this.lastStarted.set(job.owner, ++this.started);
      thread
        .run(job.request)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.ended(job.owner);
          this.dispatch();
        });
    }
  }

  /**
   * The earliest waiting file of the owner with the fewest files on the threads, and of those the owner
   * whose last file started longest ago (turns even on one thread). The queue is short: its jobs hold slots.
   */
  private takeNext(): Job {
    let next = 0;
    for (let i = 1; i < this.queue.length; i++) if (this.before(this.queue[i].owner, this.queue[next].owner)) next = i;
    return this.queue.splice(next, 1)[0];
  }

  private before(owner: string, than: string): boolean {
    const [onThreads, thanOnThreads] = [this.running.get(owner) ?? 0, this.running.get(than) ?? 0];
    if (onThreads !== thanOnThreads) return onThreads < thanOnThreads;
    return (this.lastStarted.get(owner) ?? 0) < (this.lastStarted.get(than) ?? 0);
  }

  private ended(owner: string): void {
    const left = this.running.get(owner)! - 1;
    if (left > 0) return void this.running.set(owner, left);
    this.running.delete(owner);
    if (!this.queue.some((job) => job.owner === owner)) this.lastStarted.delete(owner);
  }
}

/** A thread that has not said it is ready this long after it started is ended (a broken install, not a file). */
const BOOT_TIMEOUT_MS = 30_000;

/** One worker thread, started on first use and after it was ended; one file at a time. */
class ExtractionThread {
  private worker?: Worker;
  private readonly stopping = new StoppingThreads();
  private ready = false;
  private current?: {
    request: ReadTextRequest;
    resolve: (extracted: ExtractedText) => void;
    reject: (error: Error) => void;
    timer?: NodeJS.Timeout;
  };

  constructor(private readonly limits: { timeoutMs: number; maxHeapMb: number; nice: number }) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(request: ReadTextRequest): Promise<ExtractedText> {
    return new Promise<ExtractedText>((resolve, reject) => {
      this.current = { request, resolve, reject };
      const worker = this.ensureWorker();
      if (this.ready) this.post(worker);
    });
  }

  async close(): Promise<void> {
    this.settle(new ExtractionUnavailable('extractor closed'));
    const worker = this.worker;
    this.worker = undefined;
    await this.stopping.stop(worker);
    await this.stopping.stopped();
  }

  /** The time limit starts when the file reaches a loaded thread. */
  private post(worker: Worker): void {
    const job = this.current!;
    job.timer = setTimeout(
      () =>
        this.end(
          worker,
          new ExtractionLimitExceeded(`Extraction took longer than ${durationInWords(this.limits.timeoutMs)}`),
        ),
      this.limits.timeoutMs,
    );
    worker.postMessage(job.request);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.limits.maxHeapMb, this.limits.nice);
    const boot = setTimeout(() => this.end(worker, new Error('the extraction worker did not start')), BOOT_TIMEOUT_MS);
    worker.on('message', (message: Partial<ExtractedText> & { ready?: true; error?: string; name?: string }) => {
      if (this.worker !== worker) return;
      if (message.ready) {
        clearTimeout(boot);
        this.ready = true;
        if (this.current) this.post(worker);
      } else if (message.error === undefined)
        this.settle(undefined, { text: message.text ?? '', pages: message.pages ?? [] });
      else
        this.settle(
          message.name === TEXT_TOO_LARGE ? new ExtractionLimitExceeded(message.error) : new Error(message.error),
        );
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.end(
        worker,
        outOfMemory ? new ExtractionLimitExceeded(`Extraction ran out of memory (${this.limits.maxHeapMb} MB)`) : error,
      );
    });
    worker.on('exit', () => {
      clearTimeout(boot);
      this.end(worker, new Error('the extraction worker stopped'));
    });
    // After the listeners: adding a 'message' listener holds the process up again (Node refs the port).
    worker.unref();
    this.worker = worker;
    this.ready = false;
    return worker;
  }

  /** Fails the current file and ends its thread, unless the thread was already replaced. */
  private end(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.settle(
      this.ready ? error : new ExtractionUnavailable(`the extraction worker did not start: ${error.message}`),
    );
    void this.stopping.stop(worker);
  }

  private settle(error: Error | undefined, extracted: ExtractedText = { text: '', pages: [] }): void {
    const job = this.current;
    if (!job) return;
    this.current = undefined;
    clearTimeout(job.timer);
    if (error) job.reject(error);
    else job.resolve(extracted);
  }
}

/**
 * Each thread's young generation. V8's default lets it grow to about 48 MB, most of it garbage between
 * scavenges; at 8 MB two threads fit the worker's 400 MB beside the event loop with no measured loss of
 * speed (docs/ingestion.md).
 */
const YOUNG_GENERATION_MB = 8;

function startWorker(maxHeapMb: number, nice: number): Worker {
  const entry = join(__dirname, `extraction.worker${extname(__filename)}`);
  return startWorkerThread(
    entry,
    { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    { nice },
  );
}

function durationInWords(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms.toLocaleString('en')} ms`;
}
