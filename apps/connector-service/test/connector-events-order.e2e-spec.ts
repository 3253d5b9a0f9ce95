import Bull from 'bull';
import { SharedQueue } from '@app/contracts/payloads';
import { after, eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd, syncToSearchable } from './support/sync-helpers';

/**
 * docs/queues.md: "When nothing is pending at the end of the run [DataSourceSearchable] is sent with SyncCompleted,
 * right after it". The writer publishes them in that order. When its publish fails (Redis away, or the writer dies
 * after the commit), the relay publishes the leftovers ordered by "createdAt" — the same now() for both rows of
 * the run's ending transaction — and the agent runtime then takes DataSourceSearchable before SyncCompleted.
 */
describe('Connector events relayed after a failed publish keep their order', () => {
  let events: Bull.Queue;
  const stack = connectorOnSimulator({ env: { OUTBOX_POLL_MS: 200 }, beforeClose: () => events?.close() });
  let caller: TestCaller;
  const taken: Array<{ type: string; syncRunId: string }> = [];

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
    events = new Bull(SharedQueue.ConnectorEvents, String(stack.sut.env.REDIS_URL), {
      prefix: String(stack.sut.env.QUEUE_PREFIX),
    });
    // The agent runtime: one job at a time, in queue order.
    void events.process('*', 1, async (job) => {
      taken.push({ type: job.name, syncRunId: job.data.syncRunId });
    });
  });

  it('SyncCompleted comes before the DataSourceSearchable of the same run', async () => {
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [await stack.sim.folderId('/Structural/Specifications')],
    });
    // First run: every text extracted, its events taken.
    const first = await syncToSearchable(stack.sut.app, caller, dataSourceId);
    await eventually(() => taken.some((e) => e.type === 'DataSourceSearchable' && e.syncRunId === first.id), 30000);

    // The writer's publish fails (Redis refuses adds to connector-events); the rows stay in the outbox.
    const prefix = String(stack.sut.env.QUEUE_PREFIX);
    const redis = await events.client;
    await redis.set(`${prefix}:${SharedQueue.ConnectorEvents}:id`, 'unpublishable');
    // Second run: nothing changed, nothing pending at its end: both events in its ending transaction.
    const second = await syncToEnd(stack.sut.app, caller, dataSourceId);
    expect(second.status).toBe('Succeeded');
    const rows = await stack.sut.db.query(
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
