import { extname, join } from 'node:path';
import { LaneFailures, ProcessLane } from '../common/process-lane';
import { byteLength } from './answer-bytes';
import { AnswerShape, ReadAnswer, readAnswer } from './answer-shapes';
import type { ParseRequest } from './answer-parser.worker';

export interface AnswerParserOptions {
  /** Parser processes (default 2). */
  processes?: number;
  /** Answers up to this size are parsed in place: well under a millisecond of the event loop. */
  inlineBytes?: number;
  /** One parse may take this long before its process is ended. */
  timeoutMs?: number;
  /** Heap of each process: an answer that needs more fails alone. */
  maxHeapMb?: number;
  nice?: number;
}

const DEFAULTS = { processes: 2, inlineBytes: 64 * 1024, timeoutMs: 30_000, maxHeapMb: 128, nice: 10 };

/** The answer could not be read in its process (too slow, too much memory, or the pool closed). */
export class AnswerUnreadable extends Error {}

interface Job {
  chunks: Uint8Array[];
  shape: AnswerShape;
  maxItems: number;
  resolve: (answer: ReadAnswer) => void;
  reject: (error: Error) => void;
}

/**
 * Reads document-system answers (JSON) off the event loop: a large one is parsed in one of a few processes
 * of its own (ProcessLane), and only the fields the connector uses come back. Waiting answers are taken in turn by lane (one
 * lane per tenant, over all its logins), so one tenant's 16 MiB pages wait behind each other, not in
 * front of another tenant's.
 */
export class AnswerParser {
  private readonly options: typeof DEFAULTS;
  private readonly lanes = new Map<string, Job[]>();
  private readonly processes: Array<ProcessLane<ParseRequest, ReadAnswer>>;
  private closed = false;

  constructor(options: AnswerParserOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
    const { processes, timeoutMs, maxHeapMb, nice } = this.options;
    this.processes = Array.from(
      { length: Math.max(1, processes) },
      () =>
        new ProcessLane<ParseRequest, ReadAnswer>({
          entry: ENTRY,
          timeoutMs,
          maxHeapMb,
          nice,
          failures: PARSE_FAILURES,
        }),
    );
  }

  /**
   * A large answer's `chunks` are copied to the parsing process.
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
    await Promise.all(this.processes.map((lane) => lane.close()));
  }

  private drop(lane: string, job: Job): void {
    const waiting = this.lanes.get(lane);
    const index = waiting?.indexOf(job) ?? -1;
    if (index < 0) return; // taken by a process already
    waiting!.splice(index, 1);
    if (!waiting!.length) this.lanes.delete(lane);
    job.reject(new AnswerUnreadable('abandoned'));
  }

  /** Each free process takes the first job of the lane waiting longest; that lane goes to the back. */
  private dispatch(): void {
    for (const parser of this.processes) {
      if (parser.busy) continue;
      const next = this.lanes.entries().next();
      if (next.done) return;
      const [lane, waiting] = next.value;
      const job = waiting.shift()!;
      this.lanes.delete(lane);
      if (waiting.length) this.lanes.set(lane, waiting);
      const { chunks, shape, maxItems } = job;
      parser
        .run({ chunks, shape, maxItems })
        .then(job.resolve, job.reject)
        .finally(() => this.dispatch());
    }
  }
}

const ENTRY = join(__dirname, `answer-parser.worker${extname(__filename)}`);

const PARSE_FAILURES: LaneFailures = {
  timedOut: (ms) => new AnswerUnreadable(`reading the answer took over ${ms / 1000} s`),
  outOfMemory: (mb) => new AnswerUnreadable(`reading the answer needed over ${mb} MB`),
  reported: (message) => new AnswerUnreadable(`the answer parser failed: ${message}`),
  stopped: (reason) => new AnswerUnreadable(`the answer parser stopped (${reason})`),
  killed: () => new AnswerUnreadable('the answer parser was ended from outside (SIGKILL)'),
  notStarted: (reason) => new AnswerUnreadable(`the answer parser did not start: ${reason}`),
  closed: () => new AnswerUnreadable('the answer parser is closed'),
};
