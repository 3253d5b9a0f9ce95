/**
 * A process's CPU by thread kind, read from /proc: its main thread (the event loop), its extraction threads
 * (recognised by their nice value, which they set themselves) and the rest (V8's GC helpers, libuv's pool,
 * any other thread). Threads come and go (an extraction thread ended for a slow file is replaced), so the
 * watch reads them every half second and counts each by the most it was seen to use; what the ended ones
 * used after their last reading is in the process's total and so in "the rest".
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  mainMs: number;
  extractionMs: number;
  restMs: number;
}

const TICK_MS = 10; // /proc counts CPU in clock ticks of 1/100 s

export function watchThreadCpu(pid: number, extractionNice: number) {
  const start = read(pid);
  const seen = new Map(start.threads);
  const sample = () => {
    for (const [tid, thread] of read(pid).threads) seen.set(tid, thread);
  };
  const timer = setInterval(sample, 500);
  return {
    /** CPU used since the watch began, by thread kind. */
    now(): ThreadCpu {
      sample();
      const total = read(pid).totalMs - start.totalMs;
      const used = (tid: number) => (seen.get(tid)?.ms ?? 0) - (start.threads.get(tid)?.ms ?? 0);
      const mainMs = used(pid);
      let extractionMs = 0;
      for (const [tid, thread] of seen) if (tid !== pid && thread.nice === extractionNice) extractionMs += used(tid);
      return { mainMs, extractionMs, restMs: Math.max(0, total - mainMs - extractionMs) };
    },
    stop: () => clearInterval(timer),
  };
}

function read(pid: number): { totalMs: number; threads: Map<number, { ms: number; nice: number }> } {
  const threads = new Map<number, { ms: number; nice: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
      threads.set(tid, { ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS, nice: Number(fields[16]) });
    } catch {
      /* ended meanwhile */
    }
  }
  const fields = statFields(`/proc/${pid}/stat`);
  return { totalMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS, threads };
}

/** The fields of a /proc stat line after the command's name: [0] is the state (field 3), [11] utime, [12] stime, [16] nice. */
function statFields(file: string): string[] {
  const line = readFileSync(file, 'utf8');
  return line.slice(line.lastIndexOf(') ') + 2).split(' ');
}
