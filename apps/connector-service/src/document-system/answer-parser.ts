import { extname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorkerThread, StoppingThreads } from '../common/worker-thread';
import { byteLength } from './answer-bytes';
import { AnswerShape, ReadAnswer, readAnswer } from './answer-shapes';

export interface AnswerParserOptions {
  /** Parser threads (default 2). */
  threads?: number;
  /** Answers up to this size are parsed in place: well under a millisecond of the event loop. */
  inlineBytes?: number;
  /** One parse may take this long before its thread is ended. */
  timeoutMs?: number;
  /** Heap of each thread: an answer that needs more fails alone. */
  maxHeapMb?: number;
  nice?: number;
}

const DEFAULTS = { threads: 2, inlineBytes: 64 * 1024, timeoutMs: 30_000, maxHeapMb: 128, nice: 10 };

/** The answer could not be read in its thread (too slow, too much memory, or the pool closed). */
export class AnswerUnreadable extends Error {}

interface Job {
  chunks: Uint8Array[];
  shape: AnswerShape;
  maxItems: number;
  resolve: (answer: ReadAnswer) => void;
  reject: (error: Error) => void;
}

/**
 * Reads document-system answers (JSON) off the event loop: a large one is parsed in one of a few worker
 * threads, and only the fields the connector uses come back. Waiting answers are taken in turn by lane (one
 * lane per document-system login), so one hostile system's 16 MiB pages wait behind each other, not in
 * front of another tenant's.
 */
export class AnswerParser {
  private readonly options: typeof DEFAULTS;
  private readonly lanes = new Map<string, Job[]>();
  private readonly threads: ParserThread[];
  private closed = false;

  constructor(options: AnswerParserOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
    this.threads = Array.from({ length: Math.max(1, this.options.threads) }, () => new ParserThread(this.options));
  }

  /**
   * `chunks` each own their ArrayBuffer (`collectAnswer`): a large answer's are handed to a thread, not copied.
   * An answer still waiting when `abandoned` aborts (its request gave up) is dropped unread.
   */
  read(
    chunks: Uint8Array[],
    shape: AnswerShape,
    maxItems: number,
    lane: string,
    abandoned?: AbortSignal,
  ): Promise<ReadAnswer> {
    if (byteLength(chunks) <= this.options.inlineBytes)
      return Promise.resolve(readAnswer(Buffer.concat(chunks).toString('utf8'), shape, maxItems));
    if (this.closed) return Promise.reject(new AnswerUnreadable('the answer parser is closed'));
    return new Promise<ReadAnswer>((resolve, reject) => {
      const waiting = this.lanes.get(lane) ?? [];
      const job: Job = { chunks, shape, maxItems, resolve, reject };
      waiting.push(job);
      this.lanes.set(lane, waiting);
      abandoned?.addEventListener('abort', () => this.drop(lane, job), { once: true });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.lanes.values()].flat()) job.reject(new AnswerUnreadable('the answer parser is closed'));
    this.lanes.clear();
    await Promise.all(this.threads.map((t) => t.close()));
  }

  private drop(lane: string, job: Job): void {
    const waiting = this.lanes.get(lane);
    const index = waiting?.indexOf(job) ?? -1;
    if (index < 0) return; // taken by a thread already
    waiting!.splice(index, 1);
    if (!waiting!.length) this.lanes.delete(lane);
    job.reject(new AnswerUnreadable('abandoned'));
  }

  /** Each free thread takes the first job of the lane waiting longest; that lane goes to the back. */
  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.busy) continue;
      const next = this.lanes.entries().next();
      if (next.done) return;
      const [lane, waiting] = next.value;
      const job = waiting.shift()!;
      this.lanes.delete(lane);
      if (waiting.length) this.lanes.set(lane, waiting);
      thread
        .run(job)
        .then(job.resolve, job.reject)
        .finally(() => this.dispatch());
    }
  }
}

/** One worker thread, started on first use and again after it was ended; one answer at a time. */
class ParserThread {
  private worker?: Worker;
  private readonly stopping = new StoppingThreads();
  private current?: { id: number; job: Job; timer: NodeJS.Timeout };
  private ids = 0;

  constructor(private readonly options: typeof DEFAULTS) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(job: Job): Promise<ReadAnswer> {
    return new Promise<ReadAnswer>((resolve, reject) => {
      const worker = this.ensureWorker();
      const id = ++this.ids;
      const timer = setTimeout(
        () => this.end(worker, new AnswerUnreadable(`reading the answer took over ${this.options.timeoutMs / 1000} s`)),
        this.options.timeoutMs,
      );
      this.current = { id, job: { ...job, resolve, reject }, timer };
      const { chunks, shape, maxItems } = job;
      worker.postMessage(
        { id, chunks, shape, maxItems },
        chunks.map((c) => c.buffer as ArrayBuffer),
      );
    });
  }

  async close(): Promise<void> {
    this.settle(new AnswerUnreadable('the answer parser is closed'));
    const worker = this.worker;
    this.worker = undefined;
    await this.stopping.stop(worker);
    await this.stopping.stopped();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.options.maxHeapMb, this.options.nice);
    worker.on('message', (message: { id: number; answer: ReadAnswer }) => {
      if (this.worker === worker && this.current?.id === message.id) this.settle(undefined, message.answer);
    });
    worker.on('error', (error: Error & { code?: string }) =>
      this.end(
        worker,
        new AnswerUnreadable(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `reading the answer needed over ${this.options.maxHeapMb} MB`
            : `the answer parser failed: ${error.message}`,
        ),
      ),
    );
    worker.on('exit', () => this.end(worker, new AnswerUnreadable('the answer parser stopped')));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private end(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.settle(error);
    void this.stopping.stop(worker);
  }

  private settle(error: Error | undefined, answer?: ReadAnswer): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    if (error) current.job.reject(error);
    else current.job.resolve(answer!);
  }
}

function startWorker(maxHeapMb: number, nice: number): Worker {
  const entry = join(__dirname, `answer-parser.worker${extname(__filename)}`);
  return startWorkerThread(entry, { maxOldGenerationSizeMb: maxHeapMb }, { nice });
}
