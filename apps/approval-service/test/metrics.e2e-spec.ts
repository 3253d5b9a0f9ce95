import { AddressInfo, connect, createServer, Socket } from 'node:net';
import request from 'supertest';
import {
  ANY_UUID,
  eventually,
  hasMetric,
  HttpPeer,
  isolatedDatabase,
  metricValue,
  testCaller,
  TestCaller,
} from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const QUEUES = [
  'approval-decision-timeouts',
  'approval-decisions',
  'approval-delivery',
  'approval-reminders',
  'approval-requests',
];

describe('Approval-service /metrics on a fresh deployment', () => {
  let sut: ApprovalTestApp;

  beforeAll(async () => {
    // Neither variable set, as on a fresh deployment (an app started earlier would have copied its own here).
    delete process.env.METRICS_TOKEN;
    delete process.env.METRICS_PUBLIC;
    sut = await startApprovalApp({}, 'api');
  });
  afterAll(() => sut.close());

  it('answers 401 with the error body to everyone until the operator sets METRICS_TOKEN or METRICS_PUBLIC=true', async () => {
    const http = () => request(sut.app.getHttpServer());
    const refused = await http().get('/metrics').expect(401);
    expect(refused.body).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      code: 'UNAUTHENTICATED',
      message: 'The metrics token is required',
      details: [],
    });
    expect(refused.text).not.toContain('process_cpu_user_seconds_total');
    // Neither a platform admin's token nor any bearer value opens it.
    await http()
      .get('/metrics')
      .set((await testCaller({ roles: ['admin'] })).auth)
      .expect(401);
    await http().get('/metrics').set('Authorization', 'Bearer ').expect(401);
  });
});

describe('Approval-service metrics and queue dashboard', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let admin: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    runtime = await testCaller({ roles: ['agent-runtime'] });
    admin = await testCaller({ roles: ['admin'] });
    // A database of its own: the decision relay publishes every leftover of the outbox it reads, and the
    // run's shared database holds other test files' decisions (one once waited in this queue beside ours).
    sut = await startApprovalApp({
      DATABASE_URL: await isolatedDatabase(),
      METRICS_TOKEN: '',
      METRICS_PUBLIC: true,
      QUEUE_DASHBOARD_TENANT: admin.tenantId,
    });
    receiver = await new HttpPeer((_req, res) => void res.writeHead(202).end()).start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  it('after one approval decided by a callback, /metrics shows delivery, decision, callback latency, queues and requests by route', async () => {
    const created = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url))
      .expect(201);
    const hook = await eventually(() =>
      receiver.received.find((r) => r.headers['webhook-id'] === created.body.approvalId),
    );
    await eventually(
      async () =>
        (await http().get(`/v1/approvals/${created.body.approvalId}`).set(runtime.auth).expect(200)).body.status ===
        'AwaitingDecision',
    );
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    await http().post(CALLBACK).send({ callbackId, callbackToken, status: 'Approved' }).expect(200);
    await sut.decision(created.body.approvalId);

    // Prometheus has no platform token: with METRICS_PUBLIC=true (and no METRICS_TOKEN) /metrics needs none.
    const res = await http().get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    expect(metricValue(text, 'approval_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(metricValue(text, 'approval_delivery_attempt_duration_seconds_count', { outcome: 'delivered' })).toBe(1);
    expect(
      metricValue(text, 'approval_delivery_attempt_duration_seconds_sum', { outcome: 'delivered' }),
    ).toBeGreaterThan(0);
    expect(metricValue(text, 'approval_decisions_total', { outcome: 'Approved' })).toBe(1);
    expect(metricValue(text, 'approval_callback_decision_seconds_count', { outcome: 'Approved' })).toBe(1);
    expect(metricValue(text, 'approval_callback_decision_seconds_sum')).toBeLessThan(5);
    for (const queue of QUEUES)
      for (const state of ['waiting', 'active', 'delayed', 'failed'])
        expect(hasMetric(text, 'queue_jobs', { queue, state })).toBe(true);
    // Nobody consumes the decisions queue here: the decision waits in it, once.
    const waiting = (await sut.decisions.getWaiting()).map((job) => ({ id: String(job.id), ...job.data }));
    expect(waiting).toEqual([expect.objectContaining({ id: created.body.approvalId, outcome: 'Approved' })]);
    expect(metricValue(text, 'queue_jobs', { queue: 'approval-decisions', state: 'waiting' })).toBe(1);
    expect(
      metricValue(text, 'http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/approvals',
        status_code: '201',
      }),
    ).toBe(1);
    expect(
      metricValue(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/approvals/:id',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(text, 'http_request_duration_seconds_count', { method: 'POST', route: CALLBACK, status_code: '200' }),
    ).toBe(1);
    expect(hasMetric(text, 'process_cpu_user_seconds_total')).toBe(true);
    // Bounded labels: no approval, callback or tenant id anywhere.
    expect(text).not.toMatch(ANY_UUID);
  });

  it('labels a request no route matched as unmatched, not by its path', async () => {
    await http().get('/v1/nowhere/3b241101-e2bb-4255-8caf-4136c566a962').set(runtime.auth).expect(404);
    const text = (await http().get('/metrics').expect(200)).text;
    expect(
      metricValue(text, 'http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(ANY_UUID);
  });

  it('serves the queue dashboard to admins only: 401 without a token, 403 for other roles', async () => {
    expect((await http().get('/admin/queues').expect(401)).body).toMatchObject({
      statusCode: 401,
      code: 'UNAUTHENTICATED',
    });
    expect((await http().get('/admin/queues').set(runtime.auth).expect(403)).body).toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
    });
    await http().get('/admin/queues/api/queues').set(runtime.auth).expect(403);
    // The board shows every tenant's jobs: an admin of any other tenant than the operators' is refused.
    const tenantAdmin = await testCaller({ roles: ['admin'] });
    expect((await http().get('/admin/queues/api/queues').set(tenantAdmin.auth).expect(403)).body).toMatchObject({
      code: 'FORBIDDEN',
    });
    const page = await http().get('/admin/queues').set(admin.auth).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const api = await http().get('/admin/queues/api/queues').set(admin.auth).expect(200);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(QUEUES);
  });

  it('lets an admin open the dashboard in a browser through a short-lived HttpOnly, SameSite=Strict cookie', async () => {
    await http().get('/admin/queues/login').expect(200).expect('content-type', /html/);
    await http().post('/admin/queues/login').type('form').send({ token: runtime.token }).expect(403);
    await http().post('/admin/queues/login').type('form').send({ token: 'not-a-token' }).expect(401);
    const login = await http().post('/admin/queues/login').type('form').send({ token: admin.token }).expect(303);
    // A script may sign in with JSON, as it could on Express; JSON that does not parse is a 400, as there.
    await http().post('/admin/queues/login').send({ token: admin.token }).expect(303);
    const malformed = await http().post('/admin/queues/login').type('json').send('{"token": ').expect(400);
    expect(malformed.body).toMatchObject({
      statusCode: 400,
      code: 'MALFORMED_JSON',
      message: 'Request body is not valid JSON',
    });
    const huge = await http()
      .post('/admin/queues/login')
      .type('form')
      .send({ token: 'x'.repeat(20_000) })
      .expect(413);
    expect(huge.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'The sign-in form is too large' });
    expect(login.headers.location).toBe('/admin/queues');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(
      /^queue_dashboard_token=[^;]+; Path=\/admin\/queues; Max-Age=(\d+); HttpOnly; SameSite=Strict$/,
    );
    expect(Number(/Max-Age=(\d+)/.exec(cookie)![1])).toBeLessThanOrEqual(3600);
    const sent = cookie.split(';')[0];
    await http().get('/admin/queues').set('Cookie', sent).expect(200);
    await http().get('/admin/queues/api/queues').set('Cookie', sent).expect(200);
    await http().get('/admin/queues').set('Cookie', 'queue_dashboard_token=forged').expect(401);
    // The cookie is the dashboard's only: the platform API still wants its bearer header.
    await http().get('/v1/approvals').set('Cookie', sent).expect(401);
    const logout = await http().get('/admin/queues/logout').set('Cookie', sent).expect(303);
    expect(logout.headers.location).toBe('/admin/queues/login');
    expect(String(logout.headers['set-cookie'])).toMatch(/^queue_dashboard_token=; .*Max-Age=0/);
  });
});

describe('Approval-service metrics with METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'scrape-token-0123456789abcdef';
  let sut: ApprovalTestApp;

  beforeAll(async () => {
    // The token wins: METRICS_PUBLIC=true beside it opens nothing.
    sut = await startApprovalApp({ METRICS_TOKEN, METRICS_PUBLIC: true }, 'api');
  });
  afterAll(() => sut.close());

  it('requires Authorization: Bearer <METRICS_TOKEN> (401 otherwise, a platform admin token included)', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const http = () => request(sut.app.getHttpServer());
    expect((await http().get('/metrics').expect(401)).body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
    await http().get('/metrics').set('Authorization', 'Bearer scrape-token-0123456789abcdeX').expect(401);
    await http().get('/metrics').set(admin.auth).expect(401);
    const res = await http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
  });
});

/** A TCP relay to Redis that can stop passing bytes on, as a Redis that no longer answers. */
async function stallableRedis(
  target: URL,
): Promise<{ url: string; stall(stalled: boolean): void; close(): Promise<void> }> {
  let stalled = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
    }
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => (stalled ? held.push(() => to.write(chunk)) : to.write(chunk)));
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stall: (value) => {
      stalled = value;
      if (!value) held.splice(0).forEach((send) => send());
    },
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('Approval-service metrics while Redis does not answer', () => {
  let redis: Awaited<ReturnType<typeof stallableRedis>>;
  let sut: ApprovalTestApp;

  beforeAll(async () => {
    redis = await stallableRedis(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'));
    // ConfigModule copies an app's variables into process.env: an earlier app's METRICS_TOKEN must not apply here.
    sut = await startApprovalApp({ REDIS_URL: redis.url, METRICS_TOKEN: '', METRICS_PUBLIC: true }, 'api');
  });
  afterAll(async () => {
    redis.stall(false);
    await sut.close();
    await redis.close();
  });

  // No worker runs here, so no delivery slot exists: the first attempt waits in the delivery queue's fair share.
  it("counts a delivery attempt waiting for a slot in the queue's fair share as waiting", async () => {
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    const http = () => request(sut.app.getHttpServer());
    await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest('http://127.0.0.1:9/hook')).expect(201);
    const text = (await http().get('/metrics').expect(200)).text;
    expect(metricValue(text, 'queue_jobs', { queue: 'approval-delivery', state: 'waiting' })).toBe(1);
  });

  it('answers the scrape within its deadline, leaving the queues out and counting the timeouts', async () => {
    const http = () => request(sut.app.getHttpServer());
    expect(
      hasMetric((await http().get('/metrics').expect(200)).text, 'queue_jobs', {
        queue: 'approval-delivery',
        state: 'waiting',
      }),
    ).toBe(true);
    redis.stall(true);
    const started = Date.now();
    const text = (await http().get('/metrics').expect(200)).text;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(hasMetric(text, 'queue_jobs', { queue: 'approval-delivery' })).toBe(false);
    for (const queue of QUEUES) expect(metricValue(text, 'queue_count_timeouts_total', { queue })).toBe(1);
    expect(hasMetric(text, 'http_request_duration_seconds_count', { route: '/metrics' })).toBe(true);
  });
});
