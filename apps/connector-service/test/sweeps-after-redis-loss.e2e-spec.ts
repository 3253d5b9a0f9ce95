import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { eventually, RunningSimulator, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { INDEXING_QUEUE } from '../src/indexing/indexing.jobs';
import { SYNC_QUEUE } from '../src/sync/sync.jobs';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceOn } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';

describe("The connector's sweeps", () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
    await redis.quit();
  });

  it('come back after Redis lost its data while the connector ran on: a due scheduled sync still starts', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({ env: { SWEEP_MS: 1000 }, overrides: [[ConnectionTokens, connections]] });
    const admin = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(sut.app, sim, connections, admin, SEED_USERS.alice, '/Structural');

    // What a Redis restarted without persistence (or one that evicted keys) leaves of this service's keys.
    const keys = await redis.keys(`${String(sut.env.QUEUE_PREFIX)}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);

    await sut.db.query(
      `UPDATE connector.data_sources SET "scheduleIntervalMinutes" = 60, "nextScheduledSyncAt" = now() WHERE id = $1`,
      [dataSourceId],
    );
    await eventually(async () => {
      const [{ runs }] = await sut.db.query(
        `SELECT count(*)::int AS runs FROM connector.sync_runs WHERE "dataSourceId" = $1`,
        [dataSourceId],
      );
      return runs > 0 || undefined;
    }, 15_000);
  }, 60_000);

  it('keep one sweep of each kind when SWEEP_MS changes: the one at the old interval is dropped', async () => {
    const queue = (app: ConnectorTestApp, name: string) => app.app.get<Queue>(getQueueToken(name));
    const sweeps = async (app: ConnectorTestApp, name: string) =>
      (await queue(app, name).getRepeatableJobs()).filter((job) => job.id === 'sweep').map((job) => job.every);
    const before = await startConnectorApp({ env: { SWEEP_MS: 5000 }, role: 'worker' });
    expect(await sweeps(before, SYNC_QUEUE)).toEqual([5000]);
    const env = { QUEUE_PREFIX: before.env.QUEUE_PREFIX, DATABASE_URL: before.env.DATABASE_URL, SWEEP_MS: 2000 };
    await before.close();
    const after = await startConnectorApp({ env, role: 'worker' });
    try {
      expect(await sweeps(after, SYNC_QUEUE)).toEqual([2000]);
      expect(await sweeps(after, INDEXING_QUEUE)).toEqual([2000]);
    } finally {
      await after.close();
    }
  });
});
