import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { WorkerMetricsListener } from '@app/metrics';
import {
  ANY_UUID,
  hasMetric,
  metricSamples,
  metricValue,
  RunningSimulator,
  testCaller,
  TestCaller,
} from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { connect, providerBody, registerClient, TEST_PUBLIC_BASE_URL } from './support/oauth-flow';
import { syncToEnd, SyncRunView, waitForExtraction } from './support/sync-helpers';

const QUEUES = ['connector-events', 'connector-indexing', 'connector-sync'];

describe('Connector-service metrics and queue dashboard', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  let run: SyncRunView;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    // Access tokens live 6 s and are refreshed in their last 3 s (half their life, inside the 5 s window): the sync below refreshes.
    admin = await testCaller({ roles: ['admin'] });
    sut = await startConnectorApp({
      env: {
        PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL,
        OAUTH_REFRESH_AHEAD_SECONDS: 5,
        QUEUE_DASHBOARD_TENANT: admin.tenantId,
        METRICS_PUBLIC: true,
      },
    });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut?.close();
    await sim?.close();
  });

  it('after one sync with extraction, /metrics shows the run, its files and bytes, extraction, queues and token refreshes', async () => {
    await registerClient(sim, {
      clientId: 'metrics-client',
      clientSecrets: ['metrics-secret'],
      accessTokenTtlSeconds: 6,
    });
    const provider = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId: 'metrics-client', clientSecret: 'metrics-secret' }))
      .expect(201);
    const connection = await connect(sut, user, provider.body.id);
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(user.auth)
      .send({ name: 'Tower A', credentialId: credential.body.id, connectionId: connection.id })
      .expect(201);
    await new Promise((resolve) => setTimeout(resolve, 3200)); // past half its life: within its refresh-ahead window
    const workgroups = (await http().get(`/v1/data-sources/${ds.body.id}/folders`).set(user.auth).expect(200)).body
      .items;
    const architecture = workgroups.find((w: { name: string }) => w.name === 'Architecture');
    await http()
      .put(`/v1/data-sources/${ds.body.id}/selection`)
      .set(user.auth)
      .send({ include: [architecture.id], exclude: [] })
      .expect(200);
    run = await syncToEnd(sut.app, user, ds.body.id);
    expect(run).toMatchObject({ status: 'Succeeded' });
    await waitForExtraction(sut.app, user, ds.body.id);

    const text = (await http().get('/metrics').expect(200)).text;
    expect(metricValue(text, 'sync_runs_total', { status: 'Succeeded' })).toBe(1);
    expect(metricValue(text, 'sync_files_total', { result: 'added' })).toBe(run.counts.added);
    expect(metricValue(text, 'sync_bytes_downloaded_total')).toBe(run.bytesDownloaded);
    expect(run.bytesDownloaded).toBeGreaterThan(0);
    expect(metricValue(text, 'extraction_duration_seconds_count')).toBeGreaterThanOrEqual(run.counts.added);
    expect(
      metricValue(text, 'extraction_duration_seconds_count', { format: 'pdf', status: 'Succeeded' }),
    ).toBeGreaterThanOrEqual(1);
    const formats = new Set(
      metricSamples(text)
        .filter((s) => s.name === 'extraction_duration_seconds_count')
        .map((s) => s.labels.format),
    );
    expect([...formats].every((f) => ['pdf', 'docx', 'text', 'html', 'json', 'unsupported'].includes(f))).toBe(true);
    expect(metricValue(text, 'extraction_backlog_documents')).toBe(0);
    expect(metricValue(text, 'oauth_token_refreshes_total', { result: 'succeeded' })).toBeGreaterThanOrEqual(1);
    for (const queue of QUEUES)
      for (const state of ['waiting', 'active', 'delayed', 'failed'])
        expect(hasMetric(text, 'queue_jobs', { queue, state })).toBe(true);
    // The SyncCompleted nobody consumes here, and its DataSourceSearchable once the relay has published it.
    expect([1, 2]).toContain(metricValue(text, 'queue_jobs', { queue: 'connector-events', state: 'waiting' }));
    expect(
      metricValue(text, 'http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/data-sources/:id/sync',
        status_code: '202',
      }),
    ).toBe(1);
    expect(text).not.toMatch(ANY_UUID);
  });

  it('lists every queue of the service on the dashboard, for admins only', async () => {
    await http().get('/admin/queues/api/queues').expect(401);
    await http().get('/admin/queues/api/queues').set(user.auth).expect(403);
    // The board shows every tenant's jobs: an admin of any other tenant than the operators' is refused.
    await http()
      .get('/admin/queues/api/queues')
      .set((await testCaller({ roles: ['admin'] })).auth)
      .expect(403);
    await http().get('/admin/queues').set(admin.auth).expect(200).expect('content-type', /html/);
    const api = await http().get('/admin/queues/api/queues').set(admin.auth).expect(200);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(QUEUES);
    // Under npm start nothing consumes connector-events: the board says who does.
    const events = api.body.queues.find((q: { name: string }) => q.name === 'connector-events');
    expect(events.description).toMatch(/agent runtime, which consumes them/);
  });

  it("signs in to the dashboard on a page styled like the console's, whose policy allows only its own style and form", async () => {
    const page = await http().get('/admin/queues/login').expect(200).expect('content-type', /html/);
    expect(page.text).toMatch(/<style>[^<]*--accent: #2f5bd3/);
    expect(page.text).toContain('<label for="token">Admin token</label>');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    );
  });

  it('signs an admin in with the form and lets the cookie open the board; /logout ends it', async () => {
    await http().post('/admin/queues/login').type('form').send({ token: user.token }).expect(403);
    const login = await http().post('/admin/queues/login').type('form').send({ token: admin.token }).expect(303);
    expect(login.headers.location).toBe('/admin/queues');
    const sent = String(login.headers['set-cookie']).split(';')[0];
    await http().get('/admin/queues/api/queues').set('Cookie', sent).expect(200);
    const logout = await http().get('/admin/queues/logout').set('Cookie', sent).expect(303);
    expect(String(logout.headers['set-cookie'])).toMatch(/^queue_dashboard_token=; .*Max-Age=0/);
  });

  it('answers sign-in JSON that does not parse with 400 MALFORMED_JSON, as the approval-service does', async () => {
    const malformed = await http().post('/admin/queues/login').type('json').send('{"token": ').expect(400);
    expect(malformed.body).toMatchObject({ statusCode: 400, code: 'MALFORMED_JSON' });
  });
});

describe('Connector-service /metrics on a fresh deployment', () => {
  let sut: ConnectorTestApp;
  let worker: ConnectorTestApp;

  beforeAll(async () => {
    // Neither variable set, as on a fresh deployment (an app started earlier would have copied its own here).
    delete process.env.METRICS_TOKEN;
    delete process.env.METRICS_PUBLIC;
    sut = await startConnectorApp({ role: 'api' });
    worker = await startConnectorApp({ env: { METRICS_PORT: 0, BIND_ADDRESS: '127.0.0.1' }, role: 'worker' });
  });
  afterAll(async () => {
    await sut?.close();
    await worker?.close();
  });

  const REFUSED = {
    statusCode: 401,
    error: 'Unauthorized',
    code: 'UNAUTHENTICATED',
    message: 'The metrics token is required',
    details: [],
  };

  it('answers 401 with the error body on the API port, a platform admin token included', async () => {
    const http = () => request(sut.app.getHttpServer());
    expect((await http().get('/metrics').expect(401)).body).toEqual(REFUSED);
    await http()
      .get('/metrics')
      .set((await testCaller({ roles: ['admin'] })).auth)
      .expect(401);
  });

  it("answers 401 with the error body on a worker's METRICS_PORT", async () => {
    const res = await fetch(`http://127.0.0.1:${worker.app.get(WorkerMetricsListener).port}/metrics`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(REFUSED);
  });
});

describe('Connector-service worker metrics on METRICS_PORT', () => {
  const METRICS_TOKEN = 'worker-scrape-token-0123456789';
  let worker: ConnectorTestApp;

  beforeAll(async () => {
    worker = await startConnectorApp({
      env: { METRICS_PORT: 0, METRICS_TOKEN, BIND_ADDRESS: '127.0.0.1' },
      role: 'worker',
    });
  });
  afterAll(() => worker.close());

  it('serves GET /metrics on its own port in a worker-only process, with METRICS_TOKEN enforced', async () => {
    const url = `http://127.0.0.1:${worker.app.get(WorkerMetricsListener).port}`;
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${url}/metrics`, { headers: { Authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(hasMetric(text, 'queue_jobs', { queue: 'connector-sync', state: 'waiting' })).toBe(true);
    expect(text).toContain('# TYPE extraction_duration_seconds histogram');
    expect((await fetch(`${url}/other`)).status).toBe(404);
  });

  it('answers GET /health/live there without a token, for the liveness probe of a worker pod', async () => {
    const url = `http://127.0.0.1:${worker.app.get(WorkerMetricsListener).port}`;
    const res = await fetch(`${url}/health/live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/health/ready`)).status).toBe(404);
  });

  it('listens at BIND_ADDRESS, as the services do', () => {
    expect(worker.app.get(WorkerMetricsListener).address).toBe('127.0.0.1');
  });
});
