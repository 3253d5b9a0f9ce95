import request from 'supertest';
import {
  after,
  OwnPostgres,
  OwnRedis,
  RunningSimulator,
  startOwnPostgres,
  startOwnRedis,
  testCaller,
} from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { bulkDataSource } from './support/bulk-data-source';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { addedAtLeast, allAdded, eachFileOnce, endedAndExtracted, filesAsSeen } from './support/outage-checks';
import { SimulatorConnections } from './support/simulator-connections';

const FILES = 200;
const OUTAGE_MS = 20_000;

type Away = 'Redis' | 'PostgreSQL' | 'both';

/**
 * PostgreSQL and Redis (which keeps its data here) each away for 20 s, and both at once, while a full sync
 * downloads and saves its batches and extracts their text: longer than a job's lock (8 s), than the pool's waits,
 * than a step's backoffs. Work pauses; the run ends as it would have without the outage.
 */
describe('A full sync through a 20 s outage', () => {
  let postgres: OwnPostgres;
  let redis: OwnRedis;
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let connections: SimulatorConnections;

  beforeAll(async () => {
    [postgres, redis, sim] = await Promise.all([startOwnPostgres(), startOwnRedis(), startSimulator()]);
    connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({
      env: { DATABASE_URL: postgres.url, REDIS_URL: redis.url, SWEEP_MS: 1000 },
      overrides: [[ConnectionTokens, connections]],
    });
  }, 60_000);

  afterAll(async () => {
    await sim?.admin.put('/faults', { latencyMs: 0 });
    await sut?.close();
    await sim?.close();
    await redis?.destroy();
    await postgres?.destroy();
  });

  const outage = async (away: Away) => {
    const stores = away === 'both' ? [postgres, redis] : away === 'Redis' ? [redis] : [postgres];
    await Promise.all(stores.map((store) => store.stop()));
    await after(OUTAGE_MS);
    await Promise.all(stores.map((store) => store.start()));
  };

  it.each<Away>(['Redis', 'PostgreSQL', 'both'])(
    'of %s ends Succeeded: every file ingested and searchable once, none failed',
    async (away) => {
      const caller = await testCaller({ roles: ['admin'] });
      const source = await bulkDataSource(sim, sut, caller, connections.connect(caller), SEED_USERS.alice, FILES, 50);
      await sim.admin.put('/faults', { latencyMs: 30 });
      const { syncRunId } = (
        await request(sut.app.getHttpServer())
          .post(`/v1/data-sources/${source.dataSourceId}/sync`)
          .set(caller.auth)
          .expect(202)
      ).body;
      await addedAtLeast(sut, caller, syncRunId, 40);
      await outage(away);
      await sim.admin.put('/faults', { latencyMs: 0 });

      const run = await endedAndExtracted(sut, caller, syncRunId, source.dataSourceId, 45_000);
      expect({ status: run?.status, error: run?.error, counts: run?.counts }).toEqual({
        status: 'Succeeded',
        error: null,
        counts: allAdded(FILES),
      });
      expect(
        await filesAsSeen(
          sut,
          source.dataSourceId,
          source.files.map((f) => f.id),
        ),
      ).toEqual(eachFileOnce(FILES));
    },
    // Up to 40 s to reach the outage under load, the outage, then the wait for the end: a stuck run fails the
    // expectation, with its status, rather than jest's timeout.
    130_000,
  );
});
