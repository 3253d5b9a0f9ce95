import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The inside of a ProcessLane's process: at the lane's nice value and first in line for the kernel's
 * out-of-memory killer, it answers each request (one at a time) with `{result}` or `{error, name}`, and
 * ends when the process that started it is gone.
 */
export function serveRequests<Request, Result>(handle: (request: Request) => Result | Promise<Result>): void {
  // The default (10) yields most of the CPU to the event loop (sync runs, API requests, search) and to the
  // database. Not 19: at that weight (15 against 1024) a machine busy with other work starves the lane almost
  // entirely; at 10 it still gets about a tenth.
  try {
    setPriority(Number(process.env.LANE_NICE ?? 10));
  } catch {
    // Not permitted here: the process runs at normal priority.
  }
  // Should the machine or the container run out of memory, the kernel ends this process before the service.
  try {
    writeFileSync('/proc/self/oom_score_adj', '1000');
  } catch {
    // Not Linux, or not permitted: the kernel chooses as it would.
  }
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
