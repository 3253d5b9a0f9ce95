import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

/** ptrace's system call number, for perl's raw `syscall` (Linux). */
const PTRACE: Partial<Record<NodeJS.Architecture, number>> = { x64: 101, arm64: 117 };
/** Attaches without stopping the process. */
const PTRACE_SEIZE = 0x4206;

/**
 * Makes `pid`'s end unseen by its parent, as a process stuck in the kernel (uninterruptible I/O) never ends
 * for it: a tracer attaches and never waits, and a traced process's end is told to its tracer alone. The
 * function returned ends the tracer, and with it the hold (the parent then sees the process gone).
 */
export async function hideExitOf(pid: number): Promise<() => void> {
  const call = PTRACE[process.arch];
  if (call === undefined) throw new Error(`no ptrace system call number known for ${process.arch}`);
  const script = `$| = 1; syscall(${call}, ${PTRACE_SEIZE}, ${pid}, 0, 0) == 0 or die "ptrace: $!\\n"; print "held\\n"; sleep`;
  const tracer = spawn('perl', ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const release = () => void tracer.kill('SIGKILL');
  const held = await Promise.race([
    once(tracer.stdout, 'data').then(() => true),
    once(tracer, 'exit').then(() => false),
  ]);
  if (!held || !new RegExp(`^TracerPid:\\s*${tracer.pid}$`, 'm').test(readFileSync(`/proc/${pid}/status`, 'utf8'))) {
    release();
    throw new Error(`could not hide the end of process ${pid} (ptrace not permitted?)`);
  }
  return release;
}
