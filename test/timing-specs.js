// Specs that measure how long another tenant waits while one tenant floods the service with CPU-bound work.
// Beside three other files on two cores their figures are the neighbours', not the code's: `npm test` runs
// them after the rest, one at a time (jest.timing.config.js; docs/testing.md, "Timing specs").
module.exports = [
  'apps/approval-service/test/intake-fairness.e2e-spec.ts',
  'apps/approval-service/test/intake-backlog-fairness.e2e-spec.ts',
  'apps/approval-service/test/approval-pool-turns.e2e-spec.ts',
  'apps/approval-service/test/callback-rejection-flood.e2e-spec.ts',
  'apps/connector-service/test/pool-tenant-fairness.e2e-spec.ts',
  // The event loop's delay and tenant B's latency while A's folder picker reads costly pages: 1.9x from its bound
  // on a quiet machine.
  'apps/connector-service/test/security/picker-event-loop.e2e-spec.ts',
  // How long a run's estimate climbs, against 4.5 s: a full run on two busy cores once measured 3.3 s.
  'apps/connector-service/test/sync-run-estimate.e2e-spec.ts',
  // A repeat answered within 2 s while its own Redis is stopped, then started again. Its app's close hung for over a
  // minute twice (2026-11-30, 2026-12-02): closed within about 2 s of the restart, Bull's close resends the blocking
  // reads it had queued, which Redis serves 5 s each; onOwnRedis now closes once the queues are connected again.
  'apps/approval-service/test/repeat-during-redis-outage.e2e-spec.ts',
  // A callback, a cancel and a new approval answered within 5 s while Redis is stopped (each waits 2 s for its job
  // add): a fresh clone's full run on a busy two-core machine once took longer for the cancel (2026-12-02).
  'apps/approval-service/test/redis-outage-answers.e2e-spec.ts',
];
