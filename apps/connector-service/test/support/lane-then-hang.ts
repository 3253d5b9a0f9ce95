import { echoLane } from './echo-lane.options';

// Starts a lane, prints its process's pid, then keeps it busy for a minute: the test kills this process meanwhile.
const lane = echoLane({ timeoutMs: 120_000 });
void lane.run({ echo: 'pid' }).then(({ pid }) => {
  process.stdout.write(`${pid}\n`);
  return lane.run({ spinMs: 60_000 });
});
