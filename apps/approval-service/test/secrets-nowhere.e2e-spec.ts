import { Logger } from 'nestjs-pino';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { ApprovalRequestJob } from '@app/contracts/payloads';
import {
  eventually,
  everyRedisValue,
  everyStoredValue,
  HttpPeer,
  isolatedDatabase,
  secretsIn,
  testCaller,
  TestCaller,
  TEST_ENCRYPTION_KEY,
  TEST_JWT_SECRET,
} from '@app/testing';
import { ApprovalTestApp, approvalRequest, SIGNING_SECRET, startApprovalApp } from './support/approval-app';

const PUBLIC_BASE_URL = 'https://approvals.example.com';
const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const secret = (kind: string) => `${kind}-${randomBytes(12).toString('hex')}`;

/**
 * "Secrets never appear in responses, logs, plaintext columns or Redis": a whole day of approvals at the most
 * verbose log level, the error paths too (retries, timeouts, 410, refused connections, wrong tokens, invalid
 * requests, conflicts, tests), then every log line, every Redis key under the service's prefix and every
 * column of its schema are searched for every secret the day used.
 */
describe('Approval-service secrets: nowhere but where they belong', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let client: ApprovalRuntimeClient;
  const lines: string[] = [];
  const answers: string[] = [];
  const secrets: Record<string, string> = {
    jwtSecret: TEST_JWT_SECRET,
    encryptionKey: TEST_ENCRYPTION_KEY.split(':')[1],
    signingSecret: SIGNING_SECRET.slice('whsec_'.length),
  };
  /** Webhook URL paths that are a receiver's credential: kept with the approval (and the runtime's job), never logged. */
  const hookPaths: Record<string, string> = {};
  const receivers: Record<string, HttpPeer> = {};
  const http = () => request(sut.app.getHttpServer());
  const keep = (res: request.Response) => (answers.push(res.text, JSON.stringify(res.headers)), res);

  beforeAll(async () => {
    sut = await startApprovalApp(
      { PUBLIC_BASE_URL, DATABASE_URL: await isolatedDatabase(), LOG_LEVEL: 'trace' },
      'all',
      0,
      lines,
    );
    sut.app.useLogger(sut.app.get(Logger));
    runtime = await testCaller({ roles: ['agent-runtime'] });
    secrets.runtimeJwt = runtime.token;
    client = new ApprovalRuntimeClient(String(sut.env.REDIS_URL), { prefix: String(sut.env.QUEUE_PREFIX) });
    const firstAttempts = new Set<string>();
    receivers.flaky = await new HttpPeer((req, res) => {
      const id = String(req.headers['webhook-id']);
      if (firstAttempts.has(id)) return void res.writeHead(200).end();
      firstAttempts.add(id);
      res.writeHead(500).end();
    }).start();
    receivers.hanging = await new HttpPeer(() => undefined).start();
    receivers.gone = await new HttpPeer((_req, res) => void res.writeHead(410).end()).start();
    receivers.closed = await new HttpPeer().start();
  });
  afterAll(async () => {
    await client?.close();
    for (const peer of Object.values(receivers)) await peer.stop();
    await sut?.close();
  });

  function authentications() {
    const basic = { username: secret('basic-user'), password: secret('basic-password') };
    const auths = {
      ApiKey: { type: 'ApiKey', apiKey: secret('api-key') },
      BearerToken: { type: 'BearerToken', token: secret('bearer') },
      BasicAuth: { type: 'BasicAuth', ...basic },
      CustomHeader: { type: 'CustomHeader', headerName: 'X-Shared-Secret', headerValue: secret('header-value') },
    };
    Object.assign(secrets, {
      [auths.ApiKey.apiKey]: auths.ApiKey.apiKey,
      [auths.BearerToken.token]: auths.BearerToken.token,
      [basic.password]: basic.password,
      [basic.username]: basic.username,
      [`basic-header-${basic.password}`]: `${basic.username}:${basic.password}`,
      [auths.CustomHeader.headerValue]: auths.CustomHeader.headerValue,
    });
    return Object.values(auths);
  }

  it('goes through a day of approvals, tests and callbacks, the failing ones included', async () => {
    const closedUrl = receivers.closed.url;
    await receivers.closed.stop();
    const created: string[] = [];
    for (const [name, url] of [
      ['flaky', receivers.flaky.url],
      ['hanging', receivers.hanging.url],
      ['gone', receivers.gone.url],
      ['closed', closedUrl],
    ]) {
      for (const authentication of authentications()) {
        const body = approvalRequest(`${url}/hook/${name}`, { authentication, timeoutSeconds: 1, maxRetryAttempts: 1 });
        const res = keep(await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201));
        created.push(res.body.approvalId);
        if (name === 'flaky') {
          const changed = { ...body, webhook: { ...body.webhook, authentication: authentications()[0] } };
          keep(await http().post('/v1/approvals').set(runtime.auth).send(changed).expect(409));
        }
      }
    }
    for (const authentication of authentications()) {
      const refused = approvalRequest(receivers.flaky.url, { authentication, timeoutSeconds: 99_999 });
      keep(await http().post('/v1/approvals').set(runtime.auth).send(refused).expect(400));
      const queued = approvalRequest(receivers.flaky.url, { authentication, timeoutSeconds: 1, maxRetryAttempts: 1 });
      await client.request({ ...queued, tenantId: runtime.tenantId } as ApprovalRequestJob);
      await client.request({ ...refused, tenantId: runtime.tenantId } as ApprovalRequestJob);
      for (const url of [receivers.flaky.url, closedUrl, receivers.hanging.url]) {
        const webhook = { url, authentication, timeoutSeconds: 1 };
        keep(await http().post('/v1/approvals/test-webhook').set(runtime.auth).send({ webhook }).expect(200));
      }
    }

    // Every approval to the flaky receiver is delivered on its retry; the rest fail for good.
    const hooks = await eventually(() => {
      const delivered = receivers.flaky.received.filter((r) => !JSON.parse(r.body).test);
      return delivered.length >= 16 && delivered;
    }, 30_000);
    const bodies = hooks.map((hook) => JSON.parse(hook.body));
    for (const body of bodies) {
      secrets[`callbackToken-${body.approvalId}`] = body.callbackToken;
      secrets[`pageMac-${body.approvalId}`] = body.decisionPageUrl.split('.').pop();
    }
    const [wrong, called, paged, redelivered, cancelled] = [...new Set(bodies.map((b) => b.approvalId))].map((id) =>
      bodies.find((b) => b.approvalId === id),
    );
    await eventually(async () => {
      const one = await http().get(`/v1/approvals/${cancelled.approvalId}`).set(runtime.auth);
      return one.body.status === 'AwaitingDecision';
    });
    const callback = (body: Record<string, unknown>) => http().post(CALLBACK).send(body);
    const wrongToken = `${wrong.callbackToken.slice(0, -2)}AA`;
    keep(await callback({ callbackId: wrong.callbackId, callbackToken: wrongToken, status: 'Approved' }).expect(401));
    keep(await callback({ callbackId: called.callbackId, callbackToken: called.callbackToken, status: 'Denied' }));
    keep(await callback({ callbackId: called.callbackId, callbackToken: called.callbackToken, status: 'Approved' }));
    const page = new URL(paged.decisionPageUrl).pathname;
    keep(await http().get(page).expect(200));
    keep(await http().post(page).type('form').send('status=Approved&comment=fine').expect(200));
    keep(await http().post(`/v1/approvals/${redelivered.approvalId}/redeliver`).set(runtime.auth).expect(202));
    keep(await http().post(`/v1/approvals/${cancelled.approvalId}/cancel`).set(runtime.auth).expect(200));

    await eventually(async () => {
      const listed = await http().get('/v1/approvals').query({ limit: 200 }).set(runtime.auth).expect(200);
      const failed = listed.body.filter((a: { status: string }) => a.status === 'DeliveryFailed');
      return failed.length >= 12 && listed;
    }, 30_000);
    for (const id of created) keep(await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200));
    keep(await http().get('/v1/approvals').query({ limit: 200 }).set(runtime.auth).expect(200));
  }, 90_000);

  it('goes on while its table is gone: requests over HTTP and from the queue fail for a reason not theirs', async () => {
    await sut.db.query('ALTER TABLE approval.approvals RENAME TO approvals_away');
    try {
      for (const authentication of authentications()) {
        // A Slack-style receiver: the webhook URL's path is its credential (shown whole to admins only).
        const hookPath = secret('hook-path');
        hookPaths[hookPath] = hookPath;
        const body = approvalRequest(`${receivers.flaky.url}/services/T0/B0/${hookPath}`, { authentication });
        keep(await http().post('/v1/approvals').set(runtime.auth).send(body).expect(500));
        await client.request({ ...body, tenantId: runtime.tenantId } as ApprovalRequestJob);
      }
      await eventually(async () => (await sut.requests.getFailed()).length >= 4 + 4, 20_000);
      // Each 500 is logged with its error, whose statement carried the request's values.
      expect(lines.filter((line) => line.includes('Unexpected error')).length).toBeGreaterThanOrEqual(4);
    } finally {
      await sut.db.query('ALTER TABLE approval.approvals_away RENAME TO approvals');
    }
  }, 30_000);

  it('keeps every secret out of the answers, the log, Redis and the database', async () => {
    expect(lines.length).toBeGreaterThan(50);
    expect(Object.keys(secrets).length).toBeGreaterThan(40);
    const prefix = String(sut.env.QUEUE_PREFIX);
    // The decision page's link is in every approval a reader of the tenant sees, by design (docs/approvals.md).
    const answered = Object.fromEntries(Object.entries(secrets).filter(([name]) => !name.startsWith('pageMac-')));
    expect({
      answers: secretsIn(answers.join('\n'), answered),
      log: secretsIn(lines.join('\n'), { ...secrets, ...hookPaths }),
      redis: secretsIn(await everyRedisValue(String(sut.env.REDIS_URL), prefix), secrets),
      database: secretsIn(await everyStoredValue(sut.db, 'approval'), secrets),
    }).toEqual({ answers: [], log: [], redis: [], database: [] });
  });
});
