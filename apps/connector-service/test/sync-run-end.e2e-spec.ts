import Bull from 'bull';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SharedQueue, SyncCompletedEvent } from '@app/contracts';
import { eventually, RunningSimulator, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { SyncCompletion } from '../src/sync/sync-completion';
import { SyncScheduler } from '../src/sync/sync-scheduler';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { SimulatorConnections } from './support/simulator-connections';

/** A run whose last step committed, but whose end was lost with the database (or the process) right after. */
describe('The end of a sync run', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let events: Bull.Queue<SyncCompletedEvent>;

  beforeAll(async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    events = new Bull(SharedQueue.ConnectorEvents, String(sut.env.REDIS_URL), { prefix: String(sut.env.QUEUE_PREFIX) });
  });

  afterAll(async () => {
    await events?.close();
    await sut?.close();
    await sim?.close();
  });

  it('is not lost when the database goes away between the last step and the end: the sweep ends the run', async () => {
    const completion = sut.app.get(SyncCompletion);
    const finish = completion.finishIfDone.bind(completion);
    let lost = 0;
    // The first time a step would end the run, the database is gone (the step's commit went through).
    completion.finishIfDone = async (syncRunId: string) => {
      if (lost === 0) {
        lost++;
        throw new Error('Connection terminated unexpectedly');
      }
      return finish(syncRunId);
    };
    const admin = await testCaller({ roles: ['admin'] });
    const http = () => request(sut.app.getHttpServer());
    const credentialId = (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body.id;
    const connections = sut.app.get(ConnectionTokens) as SimulatorConnections;
    const dataSourceId = (
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(admin.auth)
        .send({ name: 'Specs', credentialId, connectionId: connections.connect(admin) })
        .expect(201)
    ).body.id;
    await http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(admin.auth)
      .send({ include: [await sim.folderId('/Structural/Specifications')], exclude: [] })
      .expect(200);
    const { syncRunId } = (await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(admin.auth).expect(202)).body;

    const runOf = async () => (await http().get(`/v1/sync-runs/${syncRunId}`).set(admin.auth).expect(200)).body;
    await eventually(async () => lost === 1, 30000);
    // Every task is done, and the step's retries find nothing left to do: the run stays Running.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await runOf()).status).toBe('Running');

    await sut.app.get(SyncScheduler).sweep();

    expect(await runOf()).toMatchObject({ status: 'Succeeded', error: null });
    const event = await eventually(async () => (await events.getJob(`sync-completed:${syncRunId}`))?.data, 10000);
    expect(event).toMatchObject({ type: 'SyncCompleted', syncRunId, status: 'Succeeded' });
  });
});
