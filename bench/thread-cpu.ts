/**
 * A process's CPU by kind, read from /proc: its main thread (the event loop), its children (the extraction
 * and answer-parser processes) and the rest of its threads (V8's GC helpers, libuv's pool, any other thread).
 * Ended children are counted whole: the kernel adds them to the process's children's time once they are
 * reaped.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  mainMs: number;
  extractionMs: number;
  restMs: number;
}

const TICK_MS = 10; // /proc counts CPU in clock ticks of 1/100 s

export function watchThreadCpu(pid: number) {
  const start = read(pid);
  return {
    /** CPU used since the watch began, by kind. */
    now(): ThreadCpu {
      const current = read(pid);
      const mainMs = current.mainMs - start.mainMs;
      return {
        mainMs,
        extractionMs: current.reapedMs - start.reapedMs + current.liveChildrenMs - start.liveChildrenMs,
        restMs: Math.max(0, current.ownMs - start.ownMs - mainMs),
      };
    },
    stop: () => undefined,
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
  const main = statFields(`/proc/${pid}/task/${pid}/stat`);
  const fields = statFields(`/proc/${pid}/stat`);
  return {
    mainMs: (Number(main[11]) + Number(main[12])) * TICK_MS,
    ownMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
    reapedMs: (Number(fields[13]) + Number(fields[14])) * TICK_MS,
    liveChildrenMs: liveChildrenCpuMs(pid),
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

/** The fields of a /proc stat line after the command's name: [0] is the state (field 3), [1] the parent's pid, [11] utime, [12] stime, [13] and [14] the reaped children's. */
function statFields(file: string): string[] {
  const line = readFileSync(file, 'utf8');
  return line.slice(line.lastIndexOf(') ') + 2).split(' ');
}
