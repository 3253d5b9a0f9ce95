/**
 * A process's CPU by kind, read from /proc: its main thread (the event loop), its extraction processes (its
 * children) and answer-parser threads (recognised by their nice value, which they set themselves), and the
 * rest of its threads (V8's GC helpers, libuv's pool, any other thread). Threads come and go (a parser thread
 * ended for a slow answer is replaced), so the watch reads them every half second and counts each by the
 * most it was seen to use; what the ended ones used after their last reading is in the process's total and
 * so in "the rest". Ended children are counted whole: the kernel adds them to the process's children's time
 * once they are reaped.
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
    /** CPU used since the watch began, by kind. */
    now(): ThreadCpu {
      sample();
      const current = read(pid);
      const total = current.ownMs - start.ownMs;
      const used = (tid: number) => (seen.get(tid)?.ms ?? 0) - (start.threads.get(tid)?.ms ?? 0);
      const mainMs = used(pid);
      let parserMs = 0;
      for (const [tid, thread] of seen) if (tid !== pid && thread.nice === extractionNice) parserMs += used(tid);
      const childrenMs = current.reapedMs - start.reapedMs + current.liveChildrenMs - start.liveChildrenMs;
      return {
        mainMs,
        extractionMs: parserMs + childrenMs,
        restMs: Math.max(0, total - mainMs - parserMs),
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** CPU of a process and of every child it has had (reaped or still running), in ms. */
export function processTreeCpuMs(pid: number): number {
  const { ownMs, reapedMs, liveChildrenMs } = read(pid);
  return ownMs + reapedMs + liveChildrenMs;
}

/** CPU of a process's children that have ended and been reaped, in ms. */
export function reapedChildrenCpuMs(pid: number): number {
  return read(pid).reapedMs;
}

function read(pid: number) {
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
  return {
    ownMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
    reapedMs: (Number(fields[13]) + Number(fields[14])) * TICK_MS,
    liveChildrenMs: liveChildrenCpuMs(pid),
    threads,
  };
}

function liveChildrenCpuMs(pid: number): number {
  let ms = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = statFields(`/proc/${name}/stat`);
      if (Number(fields[1]) === pid) ms += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      /* ended meanwhile */
    }
  }
  return ms;
}

/** The fields of a /proc stat line after the command's name: [0] is the state (field 3), [1] the parent's pid, [11] utime, [12] stime, [13] and [14] the reaped children's, [16] nice. */
function statFields(file: string): string[] {
  const line = readFileSync(file, 'utf8');
  return line.slice(line.lastIndexOf(') ') + 2).split(' ');
}
