import { replayDecisions } from './outbox/replay-decisions.command';

/** `npm run approvals:replay-decisions -- --since <time> [--tenant <id>] [--dry-run]` (docs/operating.md). */
void replayDecisions(process.argv.slice(2), { out: process.stdout, err: process.stderr, log: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
);
