import { readdirSync, readFileSync } from 'node:fs';

/** The state and parent of a process, from /proc (Linux); null once it is gone. */
function statOf(pid: number | string): { state: string; parent: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return { state: fields[0], parent: Number(fields[1]) };
  } catch {
    return null;
  }
}

/** Whether the process runs (a zombie, ended and not yet reaped by whoever adopted it, does not). */
export function isRunning(pid: number): boolean {
  const stat = statOf(pid);
  return stat !== null && stat.state !== 'Z';
}

/** The processes `parent` started that still run, those whose command line holds `running` when it is given. */
export function childrenOf(parent: number, running?: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && statOf(name)?.parent === parent && isRunning(Number(name)))
    .filter((pid) => {
      if (!running) return true;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(running);
      } catch {
        return false;
      }
    })
    .map(Number);
}
