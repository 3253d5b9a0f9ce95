import { after, eventually, isolatedDatabase, ReplyDroppingProxy, testCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { dataSourceOn } from './support/data-source-on';

const SWEEP_MS = 1000;
/** The statement that moves a due schedule to its next time. */
const movesSchedule = (chunk: Buffer) => /"nextScheduledSyncAt" = [^,]*make_interval/.test(chunk.toString());
const storesRun = (chunk: Buffer) => /INSERT INTO "connector"\."sync_runs"/.test(chunk.toString());

/**
 * The sweep moved a due schedule to its next time, then started its run. PostgreSQL going away in between (here:
 * a connection cut once the move has run, or as the run is stored, as a restart does) lost the scheduled sync for
 * a whole interval: the next sweep found the schedule not due any more, and no run was ever started for it.
 */
describe('A scheduled sync whose claim meets a PostgreSQL outage', () => {
  let proxy: ReplyDroppingProxy;
  const stack = connectorOnSimulator({
    env: { SWEEP_MS },
    beforeStart: async () => {
      const databaseUrl = new URL(await isolatedDatabase());
      proxy = await new ReplyDroppingProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port) }).start();
      const viaProxy = new URL(databaseUrl);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      return { env: { DATABASE_URL: viaProxy.toString() } };
    },
    afterClose: () => proxy?.stop(),
  });

  const cases: Array<[string, (chunk: Buffer) => boolean, boolean]> = [
    ['the schedule is moved (its reply lost)', movesSchedule, true],
    ['the run is stored (the statement lost)', storesRun, false],
  ];
  it.each(cases)(
    'still starts, once, when PostgreSQL goes away as %s',
    async (_moment, matches, reply) => {
      const admin = await testCaller({ roles: ['admin'] });
      const { sut, sim, connections } = stack;
      const dataSourceId = await dataSourceOn(sut.app, sim, connections, admin, SEED_USERS.alice, '/Structural');
      let cut = false;
      void proxy.dropNext(matches, { reply }).then(() => (cut = true));
      await sut.db.query(
        `UPDATE connector.data_sources SET "scheduleIntervalMinutes" = 60, "nextScheduledSyncAt" = now() WHERE id = $1`,
        [dataSourceId],
      );

      await eventually(() => cut, 15_000);
      const runs = async () =>
        (await sut.db.query(`SELECT count(*)::int AS n FROM connector.sync_runs WHERE "dataSourceId" = $1`, [
          dataSourceId,
        ])) as Array<{ n: number }>;
      const started = await eventually(async () => (await runs())[0].n > 0, 15_000).catch(() => false);
      await after(3 * SWEEP_MS); // later sweeps start no second run
      expect({ started, runs: (await runs())[0].n }).toEqual({ started: true, runs: 1 });
    },
    60_000,
  );
});
