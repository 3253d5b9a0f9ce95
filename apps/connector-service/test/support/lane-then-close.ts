import { echoLane } from './echo-lane.options';

// Runs one request, closes the lane, and says so once the close has resolved (nothing else holds this process up).
const lane = echoLane();
void lane
  .run({ echo: 'x' })
  .then(() => lane.close())
  .then(() => process.stdout.write('closed'));
