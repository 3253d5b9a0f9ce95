import Bull from 'bull';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SharedQueue, SyncCompletedEvent } from '@app/contracts/payloads';
import { after, eventually, killChild, RunningSimulator, startChildApp, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceSelecting } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { waitForRun } from './support/sync-helpers';

describe('SyncCompleted when the worker dies between the run’s commit and the event’s publication', () => {
  let sim: RunningSimulator;
  let api: ConnectorTestApp;
  let events: Bull.Queue<SyncCompletedEvent>;
  let worker: ChildProcess | undefined;

  afterAll(async () => {
    if (worker) await killChild(worker);
    await events?.close();
    await api?.close();
    await sim?.close();
  });

  it('is published exactly once, by the next worker', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    api = await startConnectorApp({
      role: 'api',
      env: { OUTBOX_POLL_MS: 200 },
      overrides: [[ConnectionTokens, connections]],
    });
    const caller = await testCaller({ roles: ['admin'] });
    const http = () => request(api.app.getHttpServer());
    const projectId = randomUUID();
    const dataSourceId = await dataSourceSelecting(api.app, sim, caller, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(caller),
      include: [await sim.folderId('/Structural/Specifications')],
      projectId,
    });

    // Redis refuses every add to connector-events (its job counter is not a number): the worker that
    // ends the run commits it but cannot publish, and is then killed, as if it died right after the commit.
    const prefix = String(api.env.QUEUE_PREFIX);
    events = new Bull<SyncCompletedEvent>(SharedQueue.ConnectorEvents, String(api.env.REDIS_URL), { prefix });
    const redis = await events.client;
    await redis.set(`${prefix}:${SharedQueue.ConnectorEvents}:id`, 'unpublishable');
    const workerEnv = { TEST_SIMULATOR_URL: sim.url };
    worker = await startChildApp('apps/connector-service/test/support/run-connector.ts', api.env, 'worker', workerEnv);
    const started = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202);
    const run = await waitForRun(api.app, caller, started.body.syncRunId, 60000);
    expect(run.status).toBe('Succeeded');
    await after(1000);
    await killChild(worker, 'SIGKILL');
    expect(await events.getJobCounts()).toMatchObject({ waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 });

    await redis.del(`${prefix}:${SharedQueue.ConnectorEvents}:id`);
    worker = await startChildApp('apps/connector-service/test/support/run-connector.ts', api.env, 'worker', workerEnv);
    const event = await eventually(async () => (await events.getJob(`sync-completed:${run.id}`))?.data, 30000);
    expect(event).toEqual({
      type: 'SyncCompleted',
      tenantId: caller.tenantId,
      projectId,
      dataSourceId,
      syncRunId: run.id,
      status: 'Succeeded',
      counts: run.counts,
      pendingExtractions: expect.any(Number),
    });
    // Several relay passes later there is still only the one event.
    await after(1500);
    const all = await events.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
    expect(all.filter((job) => job.name === 'SyncCompleted' && job.data.syncRunId === run.id)).toHaveLength(1);
    const [row] = await api.db.query(
      'SELECT type, "publishedAt" FROM connector.connector_event_outbox WHERE "eventId" = $1',
      [`sync-completed:${run.id}`],
    );
    expect(row).toEqual({ type: 'SyncCompleted', publishedAt: expect.any(Date) });
  }, 180000);
});
