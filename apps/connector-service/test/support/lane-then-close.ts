import { resolve } from 'node:path';
import { ProcessLane } from '../../src/common/process-lane';

// Runs one request, closes the lane, and says so once the close has resolved (nothing else holds this process up).
const failure = (what: string) => () => new Error(what);
const lane = new ProcessLane<{ echo?: string }, { pid: number }>({
  entry: resolve(__dirname, 'echo-lane.ts'),
  timeoutMs: 30_000,
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
void lane
  .run({ echo: 'x' })
  .then(() => lane.close())
  .then(() => process.stdout.write('closed'));
