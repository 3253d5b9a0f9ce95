import { readdirSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * The inside of a ProcessLane's process: at the lane's nice value and first in line for the kernel's
 * out-of-memory killer, it answers each request (one at a time) with `{result}` or `{error, name}`, and
 * ends when the process that started it is gone.
 */
export function serveRequests<Request, Result>(handle: (request: Request) => Result | Promise<Result>): void {
  reniceEveryThread(Number(process.env.LANE_NICE ?? 10));
  // Should the machine or the container run out of memory, the kernel ends this process before the service.
  try {
    writeFileSync('/proc/self/oom_score_adj', '1000');
  } catch {
    // Not Linux, or not permitted: the kernel chooses as it would.
  }
  endWithParent();
  const send = (message: object) => process.send?.(message);
  process.on('message', (request: Request) => {
    Promise.resolve()
      .then(() => handle(request))
      .then(
        (result) => send({ result }),
        (error: Error) => send({ error: String(error?.message ?? error), name: error?.name }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}

/**
 * The default (10) yields most of the CPU to the event loop (sync runs, API requests, search) and to the
 * database. Not 19: at that weight (15 against 1024) a machine busy with other work starves the lane almost
 * entirely; at 10 it still gets about a tenth. On Linux a nice value is a thread's: V8's threads, started
 * before this runs, are set one by one; threads started later take the main thread's.
 */
function reniceEveryThread(nice: number): void {
  let tasks: string[] = ['0'];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    // No /proc: the main thread's value only.
  }
  for (const task of tasks) {
    try {
      setPriority(Number(task), nice);
    } catch {
      // Not permitted here: the thread runs at normal priority.
    }
  }
}

/**
 * 'disconnect' comes only when the event loop is free: busy in a parse that runs for minutes, this process
 * would outlive a service that was killed. A thread of its own (about 10 MB) checks every second that its
 * parent is still the one that started it (LANE_PARENT: one that died while this process loaded is caught
 * too), and ends the process, even inside native code, when it is not.
 */
function endWithParent(): void {
  const parent = Number(process.env.LANE_PARENT ?? process.ppid);
  try {
    const watchdog = new Worker(
      `const { workerData } = require('node:worker_threads');
       setInterval(() => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); }, 1000);`,
      { eval: true, workerData: { parent } },
    );
    watchdog.unref();
  } catch {
    // No thread to be had (the container's process limit): 'disconnect' alone ends it, once it is idle.
  }
}
