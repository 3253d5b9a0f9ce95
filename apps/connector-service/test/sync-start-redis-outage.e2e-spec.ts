import axios from 'axios';
import { eventually, OwnRedis, RunningSimulator, startOwnRedis, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceOn } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { waitForRun } from './support/sync-helpers';

/**
 * A run is stored before its start job goes to Redis. While Redis does not answer, the start is answered once
 * the add has waited its bound (2 s): 202 with the stored run, which starts when Redis is back (the add lands
 * from ioredis's offline queue; the sweep starts a Queued run whose start job was lost). A 503 would be
 * retried into 409 SYNC_IN_PROGRESS.
 */
describe('Starting a sync while Redis is down', () => {
  let redis: OwnRedis;
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
    await redis?.destroy();
  });

  it('is answered 202 within seconds, and the run starts and ends once Redis is back', async () => {
    redis = await startOwnRedis();
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({ env: { REDIS_URL: redis.url }, overrides: [[ConnectionTokens, connections]] });
    const caller = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(sut.app, sim, connections, caller, SEED_USERS.alice, '/Structural');
    const startSync = () =>
      axios.post(`${sut.url}/v1/data-sources/${dataSourceId}/sync`, undefined, {
        headers: caller.auth,
        validateStatus: () => true,
        timeout: 60_000,
      });

    await redis.stop();
    const started = Date.now();
    let answer: { status: number; body: { syncRunId?: string }; ms: number } | undefined;
    const answering = startSync().then(
      (res) => (answer = { status: res.status, body: res.data, ms: Date.now() - started }),
    );
    await eventually(() => answer !== undefined, 12_000).catch(() => undefined);
    const again = answer ? await startSync() : undefined;
    await redis.start();
    await answering;

    expect({ status: answer!.status, within5s: answer!.ms <= 5000 }).toEqual({ status: 202, within5s: true });
    const syncRunId = answer!.body.syncRunId!;
    expect({ status: again?.status, code: again?.data.code, syncRunId: again?.data.syncRunId }).toEqual({
      status: 409,
      code: 'SYNC_IN_PROGRESS',
      syncRunId,
    });
    expect(await waitForRun(sut.app, caller, syncRunId, 60_000)).toMatchObject({ status: 'Succeeded' });
  }, 120_000);
});
