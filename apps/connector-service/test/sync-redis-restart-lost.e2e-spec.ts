import request from 'supertest';
import { after, eventually, OwnRedis, RunningSimulator, startOwnRedis, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { bulkDataSource } from './support/bulk-data-source';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import {
  addedAtLeast,
  allAdded,
  eachFileOnce,
  endedAndExtracted,
  filesAsSeen,
  lostWorkLooksOld,
  runNow,
} from './support/outage-checks';
import { SimulatorConnections } from './support/simulator-connections';

/** One folder of five pages (the simulator's pages hold 50). */
const FILES = 240;

/**
 * Redis keeps nothing on disk: a restart loses every queue. A full sync whose Redis restarts while it lists, and
 * again while it ingests and extracts (jobs waiting, running and admitted lost, with the fair share's slots), goes
 * on from what PostgreSQL holds once the sweeps find the lost work.
 */
describe('A full sync while Redis restarts without its data', () => {
  let redis: OwnRedis;
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;

  afterAll(async () => {
    await sim?.admin.put('/faults', { latencyMs: 0 });
    await sut?.close();
    await sim?.close();
    await redis?.destroy();
  });

  it('ends Succeeded with every file ingested and searchable once, none failed', async () => {
    redis = await startOwnRedis({ keepsData: false });
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({
      env: { REDIS_URL: redis.url, SWEEP_MS: 1000 },
      overrides: [[ConnectionTokens, connections]],
    });
    const caller = await testCaller({ roles: ['admin'] });
    const source = await bulkDataSource(sim, sut, caller, connections.connect(caller), SEED_USERS.alice, FILES, FILES);
    const restart = async () => {
      await redis.stop();
      await after(1000);
      await redis.start();
      // Work stored while Redis was away lost its job too: everything before Redis came back looks old.
      await lostWorkLooksOld(sut, syncRunId, source.dataSourceId, new Date());
    };
    // Slow pages: the listing is under way when Redis first restarts.
    await sim.admin.put('/faults', { latencyMs: 400 });
    const { syncRunId } = (
      await request(sut.app.getHttpServer())
        .post(`/v1/data-sources/${source.dataSourceId}/sync`)
        .set(caller.auth)
        .expect(202)
    ).body;

    await eventually(async () => ((await runNow(sut, caller, syncRunId))?.counts.discovered ?? 0) > 0, 20_000, 20);
    const listing = (await runNow(sut, caller, syncRunId))!.counts.discovered;
    await restart();
    await sim.admin.put('/faults', { latencyMs: 30 });
    await addedAtLeast(sut, caller, syncRunId, 60);
    await restart();
    await sim.admin.put('/faults', { latencyMs: 0 });

    const run = await endedAndExtracted(sut, caller, syncRunId, source.dataSourceId, 60_000);
    expect({ listingWhenRestarted: listing < FILES, status: run?.status, error: run?.error }).toEqual({
      listingWhenRestarted: true,
      status: 'Succeeded',
      error: null,
    });
    expect(run?.counts).toEqual(allAdded(FILES));
    expect(
      await filesAsSeen(
        sut,
        source.dataSourceId,
        source.files.map((f) => f.id),
      ),
    ).toEqual(eachFileOnce(FILES));
  }, 90_000);
});
