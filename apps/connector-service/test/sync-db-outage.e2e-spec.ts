import Bull from 'bull';
import request from 'supertest';
import { SharedQueue, SyncCompletedEvent } from '@app/contracts/payloads';
import {
  after,
  eventually,
  OwnPostgres,
  RunningSimulator,
  startOwnPostgres,
  testCaller,
  TestCaller,
} from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { bulkDataSource } from './support/bulk-data-source';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { SimulatorConnections } from './support/simulator-connections';
import { SyncRunView, waitForRun } from './support/sync-helpers';

const FILES = 400;
const OUTAGE_MS = 5000;

describe('A sync run while PostgreSQL restarts twice', () => {
  let postgres: OwnPostgres;
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let events: Bull.Queue<SyncCompletedEvent>;

  afterAll(async () => {
    await events?.close();
    await sut?.close();
    await sim?.close();
    await postgres?.destroy();
  });

  it('ends as it would have without the outages: Succeeded, exact counts, one SyncCompleted; the API answers 503 meanwhile', async () => {
    postgres = await startOwnPostgres();
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({
      env: { DATABASE_URL: postgres.url, OUTBOX_POLL_MS: 200 },
      overrides: [[ConnectionTokens, connections]],
    });
    const caller = await testCaller({ roles: ['admin'] });
    const { dataSourceId, files } = await bulkDataSource(
      sim,
      sut,
      caller,
      connections.connect(caller),
      SEED_USERS.alice,
      FILES,
      50,
    );
    const prefix = String(sut.env.QUEUE_PREFIX);
    events = new Bull<SyncCompletedEvent>(SharedQueue.ConnectorEvents, String(sut.env.REDIS_URL), { prefix });
    // A slow document system, so the run is still going through both outages.
    await sim.admin.put('/faults', { latencyMs: 40 });
    const http = () => request(sut.app.getHttpServer());
    const { syncRunId } = (await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202))
      .body;

    const outageAnswers: number[] = [];
    await progressReaches(sut, caller, syncRunId, Math.round(FILES * 0.3));
    for (const outage of [1, 2]) {
      // Checked before the outage, not by a share of files: batches run side by side and end in bursts.
      if (outage === 2) await stillRunning(sut, caller, syncRunId);
      await postgres.stop();
      const until = Date.now() + OUTAGE_MS;
      while (Date.now() < until) {
        // The data source and the folder picker.
        for (const path of [`/v1/data-sources/${dataSourceId}`, `/v1/data-sources/${dataSourceId}/folders`]) {
          const res = await http().get(path).set(caller.auth);
          outageAnswers.push(res.status);
          if (res.status === 503) expect(res.body).toMatchObject({ statusCode: 503, code: 'NOT_READY' });
        }
        await after(250);
      }
      // The document system crawls (1 s a call) until both outages are over: 70 % of the files left take
      // well over a minute then, so the run is still going when the second outage begins.
      await sim.admin.put('/faults', { latencyMs: 1000 });
      await postgres.start();
      await eventually(
        async () => (await http().get(`/v1/sync-runs/${syncRunId}`).set(caller.auth)).status === 200,
        60_000,
      );
      await after(2000);
    }
    await sim.admin.put('/faults', { latencyMs: 40 });

    const run = await waitForRun(sut.app, caller, syncRunId, 180_000);
    expect(new Set(outageAnswers)).toEqual(new Set([503]));
    expect({ status: run.status, error: run.error }).toEqual({ status: 'Succeeded', error: null });
    expect(run.counts).toEqual({
      discovered: FILES,
      added: FILES,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      skipped: 0,
    });
    expect(run.bytesDownloaded).toBe(files.reduce((n, f) => n + f.size, 0));
    const docs: Array<{ externalId: string }> = await sut.db.query(
      'SELECT "externalId" FROM connector.documents WHERE "dataSourceId" = $1',
      [dataSourceId],
    );
    expect(docs.map((d) => d.externalId).sort()).toEqual(files.map((f) => f.id).sort());
    const event = await eventually(async () => (await events.getJob(`sync-completed:${syncRunId}`))?.data, 30_000);
    expect(event).toMatchObject({ type: 'SyncCompleted', syncRunId, status: 'Succeeded', counts: run.counts });
    await after(1000);
    const all = await events.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
    expect(all.filter((job) => job.data.syncRunId === syncRunId)).toHaveLength(1);
  }, 300_000);
});

/** Fails when the run has already ended: an outage from here on would not be one the run goes through. */
async function stillRunning(sut: ConnectorTestApp, caller: TestCaller, syncRunId: string) {
  const run = (await request(sut.app.getHttpServer()).get(`/v1/sync-runs/${syncRunId}`).set(caller.auth).expect(200))
    .body as SyncRunView;
  expect(run.status).toBe('Running');
}

/** Waits until the run has added at least `files` documents (reads that meet an outage are tried again). */
async function progressReaches(sut: ConnectorTestApp, caller: TestCaller, syncRunId: string, files: number) {
  await eventually(
    async () => {
      const res = await request(sut.app.getHttpServer()).get(`/v1/sync-runs/${syncRunId}`).set(caller.auth);
      const run = res.body as SyncRunView;
      if (res.status === 200 && !['Queued', 'Running'].includes(run.status))
        throw new Error(`the run ended (${run.status}) before ${files} files: slow the document system down`);
      return res.status === 200 && run.counts.added >= files;
    },
    120_000,
    100,
  );
}
