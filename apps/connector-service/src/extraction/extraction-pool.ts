import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { LaneFailures, ProcessLane, ProcessLaneOptions } from '../common/process-lane';
import { acceptedText } from './accepted-text';
import { ExtractionLimitExceeded, ExtractionUnavailable } from './extraction-errors';
import { ExtractionRequest, MEMORY_QUESTION, residentMbOf } from './held-memory';
import { ExtractedText, ExtractionKind, ReadTextRequest, TEXT_TOO_LARGE } from './read-text';

export { ExtractionLimitExceeded, ExtractionUnavailable } from './extraction-errors';

export interface ExtractionPoolOptions {
  /** Extraction processes, besides the one kept for a newcomer; by default one per core. */
  processes?: number;
  /** How long one file may take before its process is ended. */
  timeoutMs?: number;
  /** Heap each process may use before it is ended; also the most it may keep resident between files (MIN_KEPT_MB at least). */
  maxHeapMb?: number;
  /** Most text (UTF-8) one file may give. */
  maxTextBytes?: number;
  /** The processes' nice value: they yield the CPU to the event loop and the database. */
  nice?: number;
}

export const EXTRACTION_DEFAULTS = { timeoutMs: 60_000, maxHeapMb: 256, maxTextBytes: 16 * 1024 * 1024, nice: 10 };

/**
 * How long a close waits for the processes it killed to go. SIGKILL ends one within milliseconds, unless it
 * is stuck in the kernel (uninterruptible I/O): then it goes whenever the kernel lets it, without us.
 */
const STOP_WAIT_MS = 2_000;

/**
 * The least a process may keep resident between files whatever its heap limit: a fresh one holds about 100 MB,
 * 150-180 MB once it has loaded pdf.js and mammoth (under ts-node), so a smaller bound would end it after every file.
 */
const MIN_KEPT_MB = 192;

type Lane = ProcessLane<ExtractionRequest, unknown>;

interface Job {
  request: ReadTextRequest;
  /** Whose file it is (a tenant): files of different owners take turns for the processes. */
  owner: string;
  resolve: (extracted: ExtractedText) => void;
  reject: (error: Error) => void;
}

/**
 * Text extraction of every format in a few processes of its own, one file at a time in each: a file waits for
 * the first free process, and owners (tenants) take turns for it, so one tenant's backlog does not keep
 * another's file waiting. One more process takes only the file of an owner with none in the processes, when
 * every other is busy: as the fair share's reserved slot, a newcomer's file starts at once however long the
 * others' files take. A file that takes too long or needs more heap than allowed ends
 * its own process (started again for the next file) and fails only itself; the event loop never reads a file.
 * A process that keeps more than its heap limit (or MIN_KEPT_MB) resident once a file is read (V8 and the
 * allocator keep a big file's peak for every later one) is replaced by a fresh one for the next file.
 */
export class ExtractionPool {
  private readonly queue: Job[] = [];
  /** Files in the processes, by owner. */
  private readonly running = new Map<string, number>();
  /** When each owner with files here last had one started (a count of starts). */
  private readonly lastStarted = new Map<string, number>();
  private started = 0;
  /** The regular processes, then the one kept for a newcomer (last, so it is looked at only when they are busy). */
  private readonly processes: Lane[];
  /** The closes of processes replaced for the memory they kept. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly laneOptions: ProcessLaneOptions;
  /** Resident memory past which a process is replaced once it has read a file. */
  private readonly maxKeptMb: number;
  private readonly maxTextBytes: number;
  private closed = false;

  constructor({
    processes = availableParallelism(),
    maxTextBytes = EXTRACTION_DEFAULTS.maxTextBytes,
    ...limits
  }: ExtractionPoolOptions = {}) {
    this.maxTextBytes = maxTextBytes;
    this.laneOptions = { ...EXTRACTION_DEFAULTS, ...limits, entry: ENTRY, failures: EXTRACTION_FAILURES };
    this.processes = Array.from({ length: Math.max(1, processes) + 1 }, () => new ProcessLane(this.laneOptions));
    this.maxKeptMb = Math.max(this.laneOptions.maxHeapMb, MIN_KEPT_MB);
  }

  extract(kind: ExtractionKind, content: Buffer, owner = ''): Promise<ExtractedText> {
    // Shutting down: a job that gets here now is tried again later, not given a process started after the close.
    if (this.closed) return Promise.reject(new ExtractionUnavailable('extractor closed'));
    return new Promise<ExtractedText>((resolve, reject) => {
      this.queue.push({ request: { kind, content, maxTextBytes: this.maxTextBytes }, owner, resolve, reject });
      this.dispatch();
    });
  }

  /** Kills every process, and waits for them to go at most STOP_WAIT_MS: a shutdown never hangs on one. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new ExtractionUnavailable('extractor closed'));
    await atMost(STOP_WAIT_MS, Promise.all([...this.processes.map((lane) => lane.close()), ...this.retiring]));
  }

  private dispatch(): void {
    for (let index = 0; index < this.processes.length; index++) {
      if (this.processes[index].busy) continue;
      const job = this.takeNext(index === this.processes.length - 1);
      if (!job) break;
      this.running.set(job.owner, (this.running.get(job.owner) ?? 0) + 1);
      this.lastStarted.set(job.owner, ++this.started);
      void this.serve(index, job).finally(() => {
        this.ended(job.owner);
        this.dispatch();
      });
    }
    this.warmForNewcomer();
  }

  /**
   * While every regular process is busy, the newcomer's is kept started: a newcomer's file then starts at
   * once rather than after a process loads (seconds on a busy machine, in which one tenant's quick files
   * went on being read in the warm processes). Idle, it ends after its idle time, as any process does.
   */
  private warmForNewcomer(): void {
    const newcomers = this.processes[this.processes.length - 1];
    if (!this.closed && this.processes.slice(0, -1).every((lane) => lane.busy)) newcomers.warm();
  }

  /** Reads the job's file in the process at `index`; then, if that process lives on, looks at what it kept. */
  private async serve(index: number, job: Job): Promise<void> {
    const lane = this.processes[index];
    const read = lane.run(job.request);
    read.then((answer) => acceptedText(answer, this.maxTextBytes)).then(job.resolve, job.reject);
    const livesOn = await read.then(() => true, processLivesOn);
    if (livesOn) await this.retireIfSwollen(index, lane);
  }

  /**
   * Replaces the process at `index` with a fresh one (started for the next file) when it holds more than
   * maxKeptMb. It is idle: the file it read has its text, and those waiting go to the fresh one.
   */
  private async retireIfSwollen(index: number, lane: Lane): Promise<void> {
    const residentMb = residentMbOf(await lane.run(MEMORY_QUESTION).catch(() => undefined));
    if (this.closed || residentMb === undefined || residentMb <= this.maxKeptMb) return;
    this.processes[index] = new ProcessLane(this.laneOptions);
    const closing = lane.close();
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  /**
   * The earliest waiting file of the owner with the fewest files in the processes, and of those the owner
   * whose last file started longest ago (turns even with one process); for a newcomer's process, only one
   * of an owner with none in them. The queue is short: its jobs hold slots.
   */
  private takeNext(newcomerOnly: boolean): Job | undefined {
    if (this.queue.length === 0) return undefined;
    let next = 0;
    for (let i = 1; i < this.queue.length; i++) if (this.before(this.queue[i].owner, this.queue[next].owner)) next = i;
    if (newcomerOnly && this.running.has(this.queue[next].owner)) return undefined;
    return this.queue.splice(next, 1)[0];
  }

  private before(owner: string, than: string): boolean {
    const [running, thanRunning] = [this.running.get(owner) ?? 0, this.running.get(than) ?? 0];
    if (running !== thanRunning) return running < thanRunning;
    return (this.lastStarted.get(owner) ?? 0) < (this.lastStarted.get(than) ?? 0);
  }

  private ended(owner: string): void {
    const left = this.running.get(owner)! - 1;
    if (left > 0) return void this.running.set(owner, left);
    this.running.delete(owner);
    if (!this.queue.some((job) => job.owner === owner)) this.lastStarted.delete(owner);
  }
}

const ENTRY = join(__dirname, `extraction.worker${extname(__filename)}`);

/** The errors a process reported about its file: unlike the others, it lives on after them. */
const REPORTED = new WeakSet<Error>();
const processLivesOn = (error: Error) => REPORTED.has(error);

/** A file past a limit is Failed with the reason; a process that could not start leaves it to be tried again. */
const EXTRACTION_FAILURES: LaneFailures = {
  timedOut: (ms) => new ExtractionLimitExceeded(`Extraction took longer than ${durationInWords(ms)}`),
  outOfMemory: (mb) => new ExtractionLimitExceeded(`Extraction ran out of memory (${mb} MB)`),
  reported: (message, name) => {
    const error = name === TEXT_TOO_LARGE ? new ExtractionLimitExceeded(message) : new Error(message);
    REPORTED.add(error);
    return error;
  },
  stopped: (reason) => new Error(`the extraction process stopped (${reason})`),
  killed: () => new ExtractionUnavailable('the extraction process was ended from outside (SIGKILL)'),
  notStarted: (reason) => new ExtractionUnavailable(`the extraction process did not start: ${reason}`),
  closed: () => new ExtractionUnavailable('extractor closed'),
};

/** Resolves once `promise` settles, or after `ms`. */
async function atMost(ms: number, promise: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function durationInWords(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms.toLocaleString('en')} ms`;
}
