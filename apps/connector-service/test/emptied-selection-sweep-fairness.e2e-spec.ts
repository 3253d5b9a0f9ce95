import { Client } from 'pg';
import { after, eventually, OwnPostgres, startOwnPostgres, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { SyncScheduler } from '../src/sync/engine/sync-scheduler';
import { dataSourceOn } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { ingestedRows, syncToSearchable } from './support/sync-helpers';

const SWEEP_MS = 1000;

type Stack = ReturnType<typeof connectorOnSimulator>;

/** A data source of the caller's over /Structural; synced to searchable when asked. */
async function sourceOf(stack: Stack, caller: TestCaller, synced = true): Promise<string> {
  const id = await dataSourceOn(stack.sut.app, stack.sim, stack.connections, caller, SEED_USERS.alice, '/Structural');
  if (synced) await syncToSearchable(stack.sut.app, caller, id);
  return id;
}

/** What a process that died right after committing the empty selection leaves behind. */
const emptyInDatabase = (stack: Stack, id: string) =>
  stack.sut.db.query(
    `UPDATE connector.data_sources SET selection = '[]', "ingestionStatus" = 'NotConfigured' WHERE id = $1`,
    [id],
  );

/**
 * One tenant's slowness never delays another's work. A data source left selecting nothing (a crash after its selection
 * was emptied) is settled by a job of its tenant's, queued by the sweep, not by the sweep itself. Settled inline, a
 * removal that waits (a lock held, a large data source) held up its sweep, and every sweep after it stopped at the
 * same data source, until the sync workers of the process were all sweeps waiting for it.
 */
describe('The sweep while a data source left selecting nothing cannot be settled yet', () => {
  let locker: Client;
  const stack = connectorOnSimulator({ env: { SWEEP_MS, SYNC_SLOTS: 2 }, beforeClose: () => locker?.end() });

  beforeAll(async () => {
    locker = new Client({ connectionString: String(stack.sut.env.DATABASE_URL) });
    await locker.connect();
  });

  const waitingForLocks = async () =>
    (
      await locker.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].count;
  const runOf = async (dataSourceId: string): Promise<{ status: string } | undefined> =>
    (await stack.sut.db.query(`SELECT status FROM connector.sync_runs WHERE "dataSourceId" = $1`, [dataSourceId]))[0];

  it("starts another tenant's due sync and settles another tenant's emptied data source meanwhile", async () => {
    const [tenantA, tenantB, tenantC] = await Promise.all([1, 2, 3].map(() => testCaller({ roles: ['admin'] })));
    const blocked = await sourceOf(stack, tenantA);
    const emptied = await sourceOf(stack, tenantC);
    const scheduled = await sourceOf(stack, tenantB, false);

    await locker.query('BEGIN');
    try {
      // A's removal waits for one of its documents, as it would behind a long transaction.
      await locker.query(`SELECT 1 FROM connector.documents WHERE "dataSourceId" = $1 ORDER BY id LIMIT 1 FOR UPDATE`, [
        blocked,
      ]);
      await emptyInDatabase(stack, blocked);
      await emptyInDatabase(stack, emptied);
      await eventually(async () => (await waitingForLocks()) > 0, 15_000);
      await after(8 * SWEEP_MS); // sweeps go by: inline, each one stopped at A's removal
      await stack.sut.db.query(
        `UPDATE connector.data_sources SET "scheduleIntervalMinutes" = 60, "nextScheduledSyncAt" = now() WHERE id = $1`,
        [scheduled],
      );

      const started = await eventually(async () => {
        const run = await runOf(scheduled);
        return run && run.status !== 'Queued' && run;
      }, 10_000).catch(() => runOf(scheduled));
      expect({ scheduledRun: started?.status }).toEqual({ scheduledRun: expect.stringMatching(/Running|Succeeded/) });
      const ended = await eventually(async () => {
        const run = await runOf(scheduled);
        return run?.status !== 'Running' && run;
      }, 30_000);
      expect(ended).toEqual({ status: 'Succeeded' });
      await eventually(async () => (await ingestedRows(stack.sut.db, emptied)) === 0, 10_000);
      // A's removal waits once, however many sweeps went by, and keeps its documents until the lock goes.
      expect(await waitingForLocks()).toBe(1);
      expect(await ingestedRows(stack.sut.db, blocked)).toBeGreaterThan(0);
    } finally {
      await locker.query('ROLLBACK');
    }
    await eventually(async () => (await ingestedRows(stack.sut.db, blocked)) === 0, 20_000);
  }, 180_000);
});

describe('The settling the sweep queues for a data source left selecting nothing', () => {
  let postgres: OwnPostgres;
  let locker: Client;
  // SWEEP_MS a minute: no other sweep comes within the test. PostgreSQL of its own, to restart it.
  const stack = connectorOnSimulator({
    beforeStart: async () => {
      postgres = await startOwnPostgres();
      return { env: { DATABASE_URL: postgres.url } };
    },
    afterClose: () => postgres?.destroy(),
  });

  it('is carried out by its job through a restart of PostgreSQL, not left for the next sweep', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const source = await sourceOf(stack, admin);
    await emptyInDatabase(stack, source);
    locker = new Client({ connectionString: postgres.url });
    locker.on('error', () => undefined); // the restart ends its connection
    await locker.connect();
    await locker.query('BEGIN');
    // The removal waits for one of its documents, then PostgreSQL goes away under it.
    await locker.query(`SELECT 1 FROM connector.documents WHERE "dataSourceId" = $1 LIMIT 1 FOR UPDATE`, [source]);
    await stack.sut.app.get(SyncScheduler).sweep();
    await eventually(
      async () =>
        (
          await locker.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          )
        ).rows[0].n > 0,
      15_000,
    );
    await postgres.stop();
    await locker.end().catch(() => undefined);
    await after(12_000); // longer than the removal rides an outage out itself (10 s): its job must try again
    await postgres.start();

    await eventually(async () => (await ingestedRows(stack.sut.db, source).catch(() => -1)) === 0, 30_000);
  }, 90_000);
});
