import request from 'supertest';
import {
  after,
  eventually,
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
import { endedAndExtracted, filesAsSeen, lostWorkLooksOld, runNow } from './support/outage-checks';
import { SimulatorConnections } from './support/simulator-connections';
import { syncToSearchable } from './support/sync-helpers';

const FILES = 120;
const DELETED = 12;
const CHANGED = 12;
const POSTGRES_AWAY_MS = 25_000;

type Outage = 'PostgreSQL away 25 s' | 'Redis restarted without its data';

/**
 * An incremental sync that deletes and updates documents, through an outage: PostgreSQL away while it lists (its
 * deletions are decided at its end, from what it saw), or Redis restarted without its data (its listing and batches
 * lost, found again by the sweep). It deletes exactly the files gone from the document system, nothing it merely
 * did not get to see, and updates the changed ones once.
 */
describe('An incremental sync with deletions through an outage', () => {
  let postgres: OwnPostgres;
  let redis: OwnRedis;
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let connections: SimulatorConnections;

  beforeAll(async () => {
    [postgres, redis, sim] = await Promise.all([
      startOwnPostgres(),
      startOwnRedis({ keepsData: false }),
      startSimulator(),
    ]);
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

  it.each<Outage>(['PostgreSQL away 25 s', 'Redis restarted without its data'])(
    'ends Succeeded, deleting the files gone and updating the changed, once: %s',
    async (outage) => {
      const caller = await testCaller({ roles: ['admin'] });
      const source = await bulkDataSource(sim, sut, caller, connections.connect(caller), SEED_USERS.alice, FILES, 40);
      await syncToSearchable(sut.app, caller, source.dataSourceId, 40_000);
      const gone = source.files.slice(0, DELETED);
      // Text files: their new content is text.
      const changed = source.files
        .slice(DELETED)
        .filter((f) => f.path.endsWith('.txt'))
        .slice(0, CHANGED);
      for (const file of gone) await sim.admin.delete(`/nodes/${file.id}`);
      for (const file of changed) await sim.admin.patch(`/files/${file.id}`, { text: `changed ${file.id}` });

      await sim.admin.put('/faults', { latencyMs: 400 });
      const { syncRunId } = (
        await request(sut.app.getHttpServer())
          .post(`/v1/data-sources/${source.dataSourceId}/sync`)
          .set(caller.auth)
          .expect(202)
      ).body;
      await eventually(async () => ((await runNow(sut, caller, syncRunId))?.counts.discovered ?? 0) > 0, 20_000, 20);
      if (outage === 'PostgreSQL away 25 s') {
        await postgres.stop();
        await after(POSTGRES_AWAY_MS);
        await postgres.start();
      } else {
        await redis.stop();
        await after(1000);
        await redis.start();
        // Work stored while Redis was away lost its job too: everything before Redis came back looks old.
        await lostWorkLooksOld(sut, syncRunId, source.dataSourceId, new Date());
      }
      await sim.admin.put('/faults', { latencyMs: 0 });

      const run = await endedAndExtracted(sut, caller, syncRunId, source.dataSourceId, 30_000);
      expect({ status: run?.status, error: run?.error, counts: run?.counts }).toEqual({
        status: 'Succeeded',
        error: null,
        counts: {
          discovered: FILES - DELETED,
          added: 0,
          updated: CHANGED,
          unchanged: FILES - DELETED - CHANGED,
          deleted: DELETED,
          failed: 0,
          skipped: 0,
        },
      });
      const left = source.files.slice(DELETED).map((f) => f.id);
      expect(await filesAsSeen(sut, source.dataSourceId, left)).toEqual({
        missing: 0,
        doubled: 0,
        unknown: 0,
        statuses: { Succeeded: FILES - DELETED },
      });
    },
    60_000,
  );
});
