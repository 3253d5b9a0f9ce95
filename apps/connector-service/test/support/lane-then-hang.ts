import { resolve } from 'node:path';
import { ProcessLane } from '../../src/common/process-lane';

// Starts a lane, prints its process's pid, then keeps it busy for a minute: the test kills this process meanwhile.
const failure = (what: string) => () => new Error(what);
const lane = new ProcessLane<{ echo?: string; spinMs?: number }, { pid: number }>({
  entry: resolve(__dirname, 'echo-lane.ts'),
  timeoutMs: 120_000,
  maxHeapMb: 64,
  nice: 0,
  failures: {
    timedOut: failure('timed out'),
    outOfMemory: failure('out of memory'),
    reported: failure('reported'),
    stopped: failure('stopped'),
    killed: failure('killed'),
    notStarted: failure('not started'),
    closed: failure('closed'),
  },
});
void lane.run({ echo: 'pid' }).then(({ pid }) => {
  process.stdout.write(`${pid}\n`);
  return lane.run({ spinMs: 60_000 });
});
