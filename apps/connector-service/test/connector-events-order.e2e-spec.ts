import Bull from 'bull';
import { SharedQueue } from '@app/contracts/payloads';
import { after, eventually, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceSelecting } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { syncToEnd, syncToSearchable } from './support/sync-helpers';

/**
 * docs/queues.md: "When nothing is pending at the end of the run [DataSourceSearchable] is sent with SyncCompleted,
 * right after it". The writer publishes them in that order. When its publish fails (Redis away, or the writer dies
 * after the commit), the relay publishes the leftovers ordered by "createdAt" — the same now() for both rows of
 * the run's ending transaction — and the agent runtime then takes DataSourceSearchable before SyncCompleted.
 */
describe('Connector events relayed after a failed publish keep their order', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  let events: Bull.Queue;
  let connections: SimulatorConnections;
  const taken: Array<{ type: string; syncRunId: string }> = [];

  beforeAll(async () => {
    sim = await startSimulator();
    connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({
      env: { OUTBOX_POLL_MS: 200 },
      overrides: [[ConnectionTokens, connections]],
    });
    caller = await testCaller({ roles: ['admin'] });
    events = new Bull(SharedQueue.ConnectorEvents, String(sut.env.REDIS_URL), { prefix: String(sut.env.QUEUE_PREFIX) });
    // The agent runtime: one job at a time, in queue order.
    void events.process('*', 1, async (job) => {
      taken.push({ type: job.name, syncRunId: job.data.syncRunId });
    });
  });
  afterAll(async () => {
    await events?.close();
    await sut?.close();
    await sim?.close();
  });

  it('SyncCompleted comes before the DataSourceSearchable of the same run', async () => {
    const dataSourceId = await dataSourceSelecting(sut.app, sim, caller, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(caller),
      include: [await sim.folderId('/Structural/Specifications')],
    });
    // First run: every text extracted, its events taken.
    const first = await syncToSearchable(sut.app, caller, dataSourceId);
    await eventually(() => taken.some((e) => e.type === 'DataSourceSearchable' && e.syncRunId === first.id), 30000);

    // The writer's publish fails (Redis refuses adds to connector-events); the rows stay in the outbox.
    const prefix = String(sut.env.QUEUE_PREFIX);
    const redis = await events.client;
    await redis.set(`${prefix}:${SharedQueue.ConnectorEvents}:id`, 'unpublishable');
    // Second run: nothing changed, nothing pending at its end: both events in its ending transaction.
    const second = await syncToEnd(sut.app, caller, dataSourceId);
    expect(second.status).toBe('Succeeded');
    const rows = await sut.db.query(
      `SELECT type FROM connector.connector_event_outbox WHERE payload->>'syncRunId' = $1 AND "publishedAt" IS NULL`,
      [second.id],
    );
    expect(rows.map((r: { type: string }) => r.type).sort()).toEqual(['DataSourceSearchable', 'SyncCompleted']);

    // Redis accepts again: the relay publishes the leftovers.
    await redis.del(`${prefix}:${SharedQueue.ConnectorEvents}:id`);
    await eventually(() => taken.filter((e) => e.syncRunId === second.id).length === 2, 30000);
    await after(300);
    expect(taken.filter((e) => e.syncRunId === second.id).map((e) => e.type)).toEqual([
      'SyncCompleted',
      'DataSourceSearchable',
    ]);
  }, 90000);
});
