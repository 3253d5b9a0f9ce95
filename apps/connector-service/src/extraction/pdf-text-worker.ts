import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface PdfTextPoolOptions {
  /** Worker threads; by default one per core but one, at least one and at most two. */
  threads?: number;
  /** How long one PDF may take before its thread is ended. */
  timeoutMs?: number;
  /** Heap each thread may use before it is ended. */
  maxHeapMb?: number;
}

interface Job {
  content: Buffer;
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

/**
 * PDF text through a few worker threads, one PDF at a time on each: a file waits in one queue for
 * the first free thread. A PDF that takes longer than a minute, or needs more heap than allowed,
 * ends its own thread (restarted on the next file) and fails only itself.
 */
export class PdfTextPool {
  private readonly queue: Job[] = [];
  private readonly threads: PdfThread[];

  constructor({ threads = defaultThreads(), timeoutMs = 60_000, maxHeapMb = 160 }: PdfTextPoolOptions = {}) {
    this.threads = Array.from({ length: threads }, () => new PdfThread(timeoutMs, maxHeapMb));
  }

  extract(content: Buffer): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ content, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error('extractor closed'));
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (this.queue.length === 0) return;
      if (thread.busy) continue;
      const job = this.queue.shift()!;
      thread
        .run(job.content)
        .then(job.resolve, job.reject)
        .finally(() => this.dispatch());
    }
  }
}

// A core is left for the process's main thread and the database: on two cores a second PDF thread
// slowed the sync run (10 -> 13 s for 1,000 files) and did not make text searchable any sooner.
function defaultThreads(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

/** One worker thread, started on first use and after it was ended; one PDF at a time. */
class PdfThread {
  private worker?: Worker;
  private current?: Omit<Job, 'content'> & { timer: NodeJS.Timeout };

  constructor(
    private readonly timeoutMs: number,
    private readonly maxHeapMb: number,
  ) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(content: Buffer): Promise<string> {
    const worker = this.ensureWorker();
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => this.end(worker, new Error('timed out reading the PDF')), this.timeoutMs);
      this.current = { resolve, reject, timer };
      worker.postMessage(content);
    });
  }

  async close(): Promise<void> {
    this.settle(new Error('extractor closed'));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'pdf-text.worker.mjs'), { resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } });
    worker.unref();
    worker.on('message', ({ text, error }: { text?: string; error?: string }) => {
      if (this.worker === worker) this.settle(error === undefined ? undefined : new Error(error), text ?? '');
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.end(worker, outOfMemory ? new Error(`the PDF needs more memory than allowed (${this.maxHeapMb} MB)`) : error);
    });
    worker.on('exit', () => this.end(worker, new Error('PDF worker stopped')));
    this.worker = worker;
    return worker;
  }

  /** Fails the current PDF and ends its thread, unless the thread was already replaced. */
  private end(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.settle(error);
    void worker.terminate();
  }

  private settle(error: Error | undefined, text = ''): void {
    const job = this.current;
    if (!job) return;
    this.current = undefined;
    clearTimeout(job.timer);
    if (error) job.reject(error);
    else job.resolve(text);
  }
}
