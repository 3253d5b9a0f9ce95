import { existsSync, readFileSync } from 'node:fs';

/** Whether this machine tells a process's memory (Linux's /proc); looked at once. */
const READABLE = process.platform === 'linux' && existsSync('/proc/self/status');

/** How often a busy process's memory is read: a file inflating its streams grows it by about 25 MB in that time. */
const WATCH_EVERY_MS = 100;

/** The resident memory (VmRSS) in a /proc/<pid>/status, in MB. */
export function residentMbIn(status: string): number | undefined {
  const kb = /^VmRSS:\s*(\d+) kB$/m.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

/** A process's resident memory in MB: undefined where it cannot be read (not Linux, no /proc) or the process is gone. */
export function residentMb(pid: number): number | undefined {
  if (!READABLE) return undefined;
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined; // gone (or no /proc): there is nothing of it to measure
  }
  return residentMbIn(status);
}

/**
 * Calls `exceeded` once, when `pid`'s resident memory is read over `limitMb`; the function returned stops the
 * watch. Where memory cannot be read (not Linux) nothing is watched.
 */
export function watchMemory(pid: number | undefined, limitMb: number, exceeded: () => void): () => void {
  if (pid === undefined || !READABLE) return () => undefined;
  const timer = setInterval(() => {
    if ((residentMb(pid) ?? 0) <= limitMb) return;
    clearInterval(timer);
    exceeded();
  }, WATCH_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
