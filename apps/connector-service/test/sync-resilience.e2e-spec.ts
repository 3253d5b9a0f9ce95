import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { eventually, killChild, RunningSimulator, startChildApp, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { sha256Hex } from '@app/crypto';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ListFolderStep } from '../src/sync/engine/list-folder.step';
import { SyncJobName } from '../src/sync/sync.jobs';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { SimulatorConnections } from './support/simulator-connections';
import { SyncRunView, syncToEnd, waitForRun } from './support/sync-helpers';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { bulkDataSource } from './support/bulk-data-source';

/** The simulator and a connector app whose OAuth connections the simulator's tokens stand behind. */
async function startApps(env: Record<string, unknown> = {}) {
  const sim = await startSimulator();
  const connections = new SimulatorConnections(sim);
  const app = await startConnectorApp({ env, overrides: [[ConnectionTokens, connections]] });
  return { sim, sut: Object.assign(app, { connect: (caller: TestCaller) => connections.connect(caller) }) };
}

describe('Sync under faults', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;

  afterAll(async () => {
    await sim.admin.put('/faults', { rate429: 0, rate5xx: 0 });
    await sut.close();
    await sim.close();
  });

  it('ends Succeeded with exact counts through 10% 429, 5% 5xx and expiring tokens and sessions', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim, 2);
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    const caller = await testCaller({ roles: ['admin'] });
    const { dataSourceId, files } = await bulkDataSource(
      sim,
      sut,
      caller,
      connections.connect(caller),
      SEED_USERS.alice,
      300,
    );
    await sim.admin.put('/faults', { rate429: 0.1, rate5xx: 0.05, retryAfterSeconds: 0.05, seed: 3 });
    await sim.admin.put('/settings', { sessionTtlSeconds: 1 });
    const started = await request(sut.app.getHttpServer())
      .post(`/v1/data-sources/${dataSourceId}/sync`)
      .set(caller.auth)
      .expect(202);
    // Access tokens expire on their own (2 s TTL, during backoffs too); sessions are also killed every 700 ms.
    // Killing every access token that often could kill a just-refreshed one before its retry lands on a
    // loaded machine: no provider does that, and the client rightly takes it as "re-authenticate".
    const expiry = setInterval(() => void sim.admin.post('/expire', { sessions: true }).catch(() => undefined), 700);
    let run: SyncRunView;
    try {
      run = await waitForRun(sut.app, caller, started.body.syncRunId, 120000);
    } finally {
      clearInterval(expiry);
    }
    expect({ status: run.status, error: run.error, mode: run.mode }).toEqual({
      status: 'Succeeded',
      error: null,
      mode: 'Full',
    });
    expect(run.counts).toEqual({
      discovered: files.length,
      added: files.length,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      skipped: 0,
    });
    expect(run.bytesDownloaded).toBe(files.reduce((n, f) => n + f.size, 0));
    const stats = (await sim.admin.get('/stats')).data;
    expect(stats.faults['429']).toBeGreaterThan(10);
    expect(stats.faults['5xx']).toBeGreaterThan(5);
    expect(connections.refreshes).toBeGreaterThan(0);
  }, 150000);
});

describe('Sync when a file cannot be downloaded', () => {
  /** A download with no answer by then fails; the simulator holds a file's download longer (a file gone is no failure). */
  const DOCUMENT_SYSTEM_DEADLINE_MS = 2000;
  const neverAnswered = (fileId: string) => ({ latencyMs: 2 * DOCUMENT_SYSTEM_DEADLINE_MS, slowUnder: [fileId] });
  let sim: RunningSimulator;
  let sut: Awaited<ReturnType<typeof startApps>>['sut'];

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  it('saves the rest of its batch once, counts it failed after its retries, and ends PartiallySucceeded', async () => {
    ({ sim, sut } = await startApps({ DOCUMENT_SYSTEM_DEADLINE_MS }));
    const caller = await testCaller({ roles: ['admin'] });
    const { dataSourceId, files } = await bulkDataSource(sim, sut, caller, sut.connect(caller), SEED_USERS.alice, 20);
    const missing = files[3];
    await sim.admin.put('/faults', neverAnswered(missing.id));
    await sim.admin.post('/stats/reset');

    const run = await syncToEnd(sut.app, caller, dataSourceId, 60000);

    expect(run.status).toBe('PartiallySucceeded');
    expect(run.counts).toEqual({
      discovered: 20,
      added: 19,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 1,
      skipped: 0,
    });
    expect(run.bytesDownloaded).toBe(files.reduce((n, f) => n + f.size, 0) - missing.size);
    const stats = (await sim.admin.get('/stats')).data;
    // Every attempt of the batch asked for the missing file again; the 19 others were downloaded once each.
    expect(stats.calls['GET /api/v1/files/:id/content']).toBe(19 + 4);
    const docs: Array<{ externalId: string }> = await sut.db.query(
      'SELECT "externalId" FROM connector.documents WHERE "dataSourceId" = $1',
      [dataSourceId],
    );
    expect(docs.map((d) => d.externalId).sort()).toEqual(
      files
        .filter((f) => f !== missing)
        .map((f) => f.id)
        .sort(),
    );
  }, 90000);

  it('leaves the data source PartiallySynced when a run after a partial one is cancelled, queued or running', async () => {
    const caller = await testCaller({ roles: ['admin'] });
    const { dataSourceId, files } = await bulkDataSource(sim, sut, caller, sut.connect(caller), SEED_USERS.alice, 5);
    await sim.admin.put('/faults', neverAnswered(files[0].id));
    expect((await syncToEnd(sut.app, caller, dataSourceId, 60000)).status).toBe('PartiallySucceeded');
    const status = async () =>
      (await request(sut.app.getHttpServer()).get(`/v1/data-sources/${dataSourceId}`).set(caller.auth).expect(200)).body
        .ingestionStatus;
    expect(await status()).toBe('PartiallySynced');

    await sim.admin.put('/faults', { slowUnder: [], latencyMs: 300 });
    try {
      for (const waitFor of ['Queued', 'Running']) {
        const started = await request(sut.app.getHttpServer())
          .post(`/v1/data-sources/${dataSourceId}/sync`)
          .set(caller.auth)
          .expect(202);
        const runUrl = `/v1/sync-runs/${started.body.syncRunId}`;
        if (waitFor === 'Running')
          await eventually(
            async () => (await request(sut.app.getHttpServer()).get(runUrl).set(caller.auth)).body.status === 'Running',
            20_000,
            50,
          );
        await request(sut.app.getHttpServer()).post(`${runUrl}/cancel`).set(caller.auth).expect(200);
        expect(await status()).toBe('PartiallySynced');
      }
    } finally {
      await sim.admin.put('/faults', { latencyMs: 0 });
    }
  }, 90000);
});

describe('Sync when a listing job is delivered again after its page was done', () => {
  let sim: RunningSimulator;
  let sut: Awaited<ReturnType<typeof startApps>>['sut'];

  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  it("goes on from the folder's open page and lists the pages after it in the same job", async () => {
    ({ sim, sut } = await startApps());
    const caller = await testCaller({ roles: ['admin'] });
    // One folder of 120 files: three pages of 50, 50 and 20.
    const { dataSourceId, files } = await bulkDataSource(
      sim,
      sut,
      caller,
      sut.connect(caller),
      SEED_USERS.alice,
      120,
      200,
    );
    const path = files[0].path.slice(0, files[0].path.lastIndexOf('/'));
    const folderId = await sim.folderId(path);
    // A run whose worker died after committing the folder's first page (which added the second).
    const [run] = await sut.db.query(
      `INSERT INTO connector.sync_runs ("tenantId", "dataSourceId", mode, status, "startedAt", "pendingTasks") SELECT "tenantId", id, 'Full', 'Running', now(), 1
       FROM connector.data_sources WHERE id = $1 RETURNING id`,
      [dataSourceId],
    );
    const cursor = Buffer.from('50').toString('base64url');
    const first = { syncRunId: run.id, folderId, path };
    await sut.db.query(
      `INSERT INTO connector.sync_tasks ("syncRunId", key, "jobName", payload, done) VALUES ($1, $2, $4, $5, true), ($1, $3, $4, $6, false)`,
      [
        run.id,
        `folder:${folderId}`,
        `folder:${folderId}:${sha256Hex(cursor).slice(0, 16)}`,
        SyncJobName.ListFolder,
        first,
        { ...first, cursor },
      ],
    );

    await sut.app.get(ListFolderStep).listFolder(first, `folder:${folderId}`);

    const ended = await waitForRun(sut.app, caller, run.id, 60000);
    expect(ended.status).toBe('Succeeded');
    expect(ended.counts).toMatchObject({ discovered: 70, added: 70, failed: 0 });
    const open = await sut.db.query('SELECT key FROM connector.sync_tasks WHERE "syncRunId" = $1 AND NOT done', [
      run.id,
    ]);
    expect(open).toEqual([]);
  }, 90000);
});

describe('Sync when a worker is killed', () => {
  let sim: RunningSimulator;
  let api: ConnectorTestApp & { env: Record<string, unknown> };
  let worker: ChildProcess | undefined;

  afterAll(async () => {
    if (worker) await killChild(worker);
    await api?.close();
    await sim?.close();
  });

  it('ends with the same documents as an uninterrupted run, none duplicated', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    api = await startConnectorApp({
      role: 'api',
      env: { QUEUE_LOCK_DURATION_MS: 2000 },
      overrides: [[ConnectionTokens, connections]],
    });
    const caller = await testCaller({ roles: ['admin'] });
    const { dataSourceId, files } = await bulkDataSource(
      sim,
      api,
      caller,
      connections.connect(caller),
      SEED_USERS.alice,
      400,
    );
    await sim.admin.put('/faults', { latencyMs: 15 });
    const workerEnv = { TEST_SIMULATOR_URL: sim.url };
    worker = await startChildApp('apps/connector-service/test/support/run-connector.ts', api.env, 'worker', workerEnv);
    const started = await request(api.app.getHttpServer())
      .post(`/v1/data-sources/${dataSourceId}/sync`)
      .set(caller.auth)
      .expect(202);
    await eventually(
      async () =>
        (await request(api.app.getHttpServer()).get(`/v1/sync-runs/${started.body.syncRunId}`).set(caller.auth)).body
          .counts.added >= 80,
      60000,
    );
    await killChild(worker, 'SIGKILL');
    const midway = (
      await request(api.app.getHttpServer()).get(`/v1/sync-runs/${started.body.syncRunId}`).set(caller.auth)
    ).body;
    expect(midway.status).toBe('Running');
    expect(midway.counts.added).toBeLessThan(files.length);

    worker = await startChildApp('apps/connector-service/test/support/run-connector.ts', api.env, 'worker', workerEnv);
    const run = await waitForRun(api.app, caller, started.body.syncRunId, 120000);
    expect(run.status).toBe('Succeeded');
    expect(run.counts).toMatchObject({ discovered: files.length, added: files.length, failed: 0 });
    const docs: Array<{ externalId: string }> = await api.db.query(
      'SELECT "externalId" FROM connector.documents WHERE "dataSourceId" = $1',
      [dataSourceId],
    );
    expect(docs).toHaveLength(files.length);
    expect(new Set(docs.map((d) => d.externalId))).toEqual(new Set(files.map((f) => f.id)));

    const again = await syncToEnd(api.app, caller, dataSourceId, 120000);
    expect(again.counts).toMatchObject({ unchanged: files.length, added: 0, updated: 0, deleted: 0 });
  }, 240000);
});
