import { eventually, testCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { SyncScheduler } from '../src/sync/engine/sync-scheduler';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { dataSourceOn } from './support/data-source-on';

/**
 * Worker processes sweep in turn, and a sweep that outlasts SWEEP_MS overlaps the next one. A sweep reads the due
 * schedules first and starts them one after another: one held up on an earlier schedule came to a later one after
 * another sweep had started its run, the run had ended and the schedule had moved on, and started it a second time.
 */
describe('Two sweeps at once, one held up before a schedule the other starts', () => {
  const stack = connectorOnSimulator({ env: { SWEEP_MS: 3_600_000 } });

  it('starts the schedule once in its interval', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const { sut, sim, connections } = stack;
    const early = await dataSourceOn(sut.app, sim, connections, admin, SEED_USERS.alice, '/Structural');
    const later = await dataSourceOn(sut.app, sim, connections, admin, SEED_USERS.alice, '/Structural');
    const due = (id: string, ago: string) =>
      sut.db.query(
        `UPDATE connector.data_sources SET "scheduleIntervalMinutes" = 60, "nextScheduledSyncAt" = now() - $2::interval
         WHERE id = $1`,
        [id, ago],
      );
    await due(early, '2 minutes');
    await due(later, '1 minute');
    const scheduler = sut.app.get(SyncScheduler);

    // Sweep B waits on the earlier schedule's run (a run of it being stored elsewhere, not yet committed).
    const holder = sut.db.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(
      `INSERT INTO connector.sync_runs ("tenantId", "dataSourceId", mode, status)
       SELECT "tenantId", id, 'Full', 'Queued' FROM connector.data_sources WHERE id = $1`,
      [early],
    );
    const sweepB = scheduler.startDueSyncs();
    await eventually(async () => {
      const [row] = await sut.db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
         AND query LIKE '%sync_runs%'`,
      );
      return row.n > 0;
    });
    // Meanwhile the earlier schedule is no longer due, and sweep A starts the later one, whose run ends.
    await sut.db.query(
      `UPDATE connector.data_sources SET "nextScheduledSyncAt" = now() + interval '1 hour' WHERE id = $1`,
      [early],
    );
    await scheduler.startDueSyncs();
    const runsOf = (id: string) =>
      sut.db.query(`SELECT status FROM connector.sync_runs WHERE "dataSourceId" = $1`, [id]) as Promise<
        Array<{ status: string }>
      >;
    await eventually(async () => {
      const runs = await runsOf(later);
      return runs.length === 1 && !['Queued', 'Running'].includes(runs[0].status);
    }, 60_000);

    await holder.rollbackTransaction();
    await holder.release();
    await sweepB;
    expect((await runsOf(later)).length).toBe(1);
  }, 90_000);
});
