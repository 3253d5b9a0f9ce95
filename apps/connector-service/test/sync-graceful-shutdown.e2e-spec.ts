import request from 'supertest';
import { eventually, RunningSimulator, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { SimulatorConnections } from './support/simulator-connections';
import { bulkDataSource } from './support/bulk-data-source';
import { waitForExtraction, waitForRun } from './support/sync-helpers';

describe('Sync when its worker shuts down (SIGTERM, a deploy)', () => {
  let sim: RunningSimulator;
  const apps: ConnectorTestApp[] = [];

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await sim?.close();
  });

  it('fails no file and no extraction: the next worker ends the run as if none had stopped', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    const overrides: Array<[unknown, unknown]> = [[ConnectionTokens, connections]];
    const api = await startConnectorApp({ role: 'api', overrides });
    apps.push(api);
    const shared = {
      DATABASE_URL: api.env.DATABASE_URL,
      QUEUE_PREFIX: api.env.QUEUE_PREFIX,
      BLOB_DIR: api.env.BLOB_DIR,
    };
    const startWorker = async () => {
      const worker = await startConnectorApp({ role: 'worker', env: shared, overrides });
      apps.push(worker);
      return worker;
    };
    const caller = await testCaller({ roles: ['admin'] });
    const { dataSourceId, files } = await bulkDataSource(
      sim,
      api,
      caller,
      connections.connect(caller),
      SEED_USERS.alice,
      300,
    );
    await sim.admin.put('/faults', { latencyMs: 15 });
    const first = await startWorker();
    const started = await request(api.app.getHttpServer())
      .post(`/v1/data-sources/${dataSourceId}/sync`)
      .set(caller.auth)
      .expect(202);
    const run = async () =>
      (await request(api.app.getHttpServer()).get(`/v1/sync-runs/${started.body.syncRunId}`).set(caller.auth)).body;
    await eventually(async () => (await run()).counts.added >= 60 || undefined, 60_000);

    await first.close(); // what SIGTERM does (enableShutdownHooks)
    const failedDocuments = () =>
      api.db.query(
        `SELECT name, "extractionStatus", "extractionError" FROM connector.documents
         WHERE "dataSourceId" = $1 AND "extractionStatus" = 'Failed'`,
        [dataSourceId],
      );
    const midway = await run();
    expect({ status: midway.status, failed: midway.counts.failed }).toEqual({ status: 'Running', failed: 0 });
    expect(midway.counts.added).toBeLessThan(files.length);
    expect(await failedDocuments()).toEqual([]);

    await startWorker();
    const ended = await waitForRun(api.app, caller, started.body.syncRunId, 120_000);
    expect(ended.status).toBe('Succeeded');
    expect(ended.counts).toMatchObject({ discovered: files.length, added: files.length, failed: 0 });
    await waitForExtraction(api.app, caller, dataSourceId);
    expect(await failedDocuments()).toEqual([]);
  }, 240_000);
});
