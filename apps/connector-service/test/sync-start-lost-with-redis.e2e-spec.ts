import Redis from 'ioredis';
import request from 'supertest';
import { eventually, RunningSimulator, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceOn } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { SyncRunView } from './support/sync-helpers';

/**
 * A run is Queued from POST /sync until a worker takes its start job, which waits in the sync queue's fair share
 * (and then in Bull) until a slot is its tenant's. Redis restarting without its data (it keeps nothing on disk)
 * in that window loses the start job. The sweep looks only at Running runs, so the run stays Queued for ever and,
 * being the data source's one active run, refuses every later sync (409 SYNC_IN_PROGRESS), scheduled ones too.
 */
describe('A Queued sync run whose start job Redis lost (restart)', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let sim: RunningSimulator;
  let api: ConnectorTestApp;
  let worker: ConnectorTestApp | undefined;

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await sim?.close();
    await redis.quit();
  });

  it('is started by the sweep (it is not left Queued, blocking the data source for ever)', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    // No worker yet: the start job waits for a slot, as it does while the tenant's slots are taken.
    api = await startConnectorApp({ role: 'api', overrides: [[ConnectionTokens, connections]] });
    const caller = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(api.app, sim, connections, caller, SEED_USERS.alice, '/Structural');
    const http = () => request(api.app.getHttpServer());
    const { syncRunId } = (await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202))
      .body;

    // What a Redis restarted without persistence leaves of this service's keys: nothing.
    const prefix = String(api.env.QUEUE_PREFIX);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    // Long ago, as far as any sweep's patience goes (the sweep's own rule for a lost start is two minutes).
    await api.db.query(`UPDATE connector.sync_runs SET "createdAt" = now() - interval '30 minutes' WHERE id = $1`, [
      syncRunId,
    ]);

    worker = await startConnectorApp({
      role: 'worker',
      env: { DATABASE_URL: api.env.DATABASE_URL, QUEUE_PREFIX: prefix, BLOB_DIR: api.env.BLOB_DIR, SWEEP_MS: 1000 },
      overrides: [[ConnectionTokens, connections]],
    });
    const run = async () =>
      (await http().get(`/v1/sync-runs/${syncRunId}`).set(caller.auth).expect(200)).body as SyncRunView;
    await eventually(async () => !['Queued', 'Running'].includes((await run()).status), 20_000).catch(() => undefined);
    const ended = await run();
    const again = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth);
    expect({ status: ended.status, againStatus: again.status }).toEqual({ status: 'Succeeded', againStatus: 202 });
  }, 90_000);
});
