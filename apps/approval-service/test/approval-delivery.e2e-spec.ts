import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { HttpPeer, eventually, testCaller, TestCaller } from '@app/testing';
import {
  allStoredText,
  ApprovalTestApp,
  approvalRequest,
  SIGNING_SECRET,
  startApprovalApp,
} from './support/approval-app';

describe('Approval delivery', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;
  const sent = (approvalId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === approvalId);

  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });
  beforeEach(() => {
    receiver.handler = (_req, res) => {
      res.writeHead(200).end('ok');
    };
  });

  it('pauses with 201 Pending and POSTs every payload key, then awaits the decision', async () => {
    const body = approvalRequest(`${receiver.url}/hooks`);
    const res = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
    expect(res.body).toEqual({ approvalId: expect.any(String), callbackId: expect.any(String), status: 'Pending' });
    const [hook] = await eventually(() => sent(res.body.approvalId).length && sent(res.body.approvalId));
    expect(hook.method).toBe('POST');
    expect(hook.path).toBe('/hooks');
    expect(hook.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(hook.body);
    expect(payload).toEqual({
      callbackId: res.body.callbackId,
      callbackToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      agentName: 'Procurement agent',
      message: 'Approve PO 4711?',
      stepInput: body.stepInput,
      previousResults: body.previousResults,
      executionId: body.executionId,
      stepId: 'approve-po',
      approvalId: res.body.approvalId,
      callbackUrl: `${sut.env.PUBLIC_BASE_URL}/v1/AgentExecutionWebhookApproval/callback`,
      decisionPageUrl: expect.stringMatching(
        new RegExp(
          `^${sut.env.PUBLIC_BASE_URL}/v1/decision-pages/${res.body.approvalId}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`,
        ),
      ),
      requestedAt: expect.any(String),
    });
    await eventually(async () => (await approvalOf(res.body.approvalId)).status === 'AwaitingDecision');
    const approval = await approvalOf(res.body.approvalId);
    expect(approval.log.map((e: { type: string }) => e.type)).toEqual(['Requested', 'DeliveryAttempt', 'Delivered']);
    expect(approval.log[1]).toMatchObject({ attempt: 1, httpStatus: 200, durationMs: expect.any(Number), error: null });
  });

  it.each([
    ['None', {}, (h: Record<string, unknown>) => expect(h.authorization).toBeUndefined()],
    ['ApiKey', { apiKey: 'key-123' }, (h: Record<string, unknown>) => expect(h['x-api-key']).toBe('key-123')],
    [
      'BearerToken',
      { token: 'tok-456' },
      (h: Record<string, unknown>) => expect(h.authorization).toBe('Bearer tok-456'),
    ],
    [
      'BasicAuth',
      { username: 'erp', password: 's3cr3t:x' },
      (h: Record<string, unknown>) =>
        expect(h.authorization).toBe(`Basic ${Buffer.from('erp:s3cr3t:x').toString('base64')}`),
    ],
    [
      'CustomHeader',
      { headerName: 'X-Shared-Secret', headerValue: 'hv-789' },
      (h: Record<string, unknown>) => expect(h['x-shared-secret']).toBe('hv-789'),
    ],
  ])('authenticates with %s', async (type, values, check) => {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, { authentication: { type, ...values } }))
      .expect(201);
    const [hook] = await eventually(() => sent(res.body.approvalId).length && sent(res.body.approvalId));
    check(hook.headers);
  });

  it('signs every delivery per Standard Webhooks', async () => {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201);
    const [hook] = await eventually(() => sent(res.body.approvalId).length && sent(res.body.approvalId));
    const headers = {
      'webhook-id': String(hook.headers['webhook-id']),
      'webhook-timestamp': String(hook.headers['webhook-timestamp']),
      'webhook-signature': String(hook.headers['webhook-signature']),
    };
    expect(new Webhook(SIGNING_SECRET).verify(hook.body, headers)).toMatchObject({ approvalId: res.body.approvalId });
    expect(() => new Webhook(SIGNING_SECRET).verify(hook.body.replace('Procurement', 'Evil'), headers)).toThrow();
  });

  it('is idempotent per (executionId, stepId): a repeat answers 200 with the same approval and sends nothing new', async () => {
    const body = approvalRequest(receiver.url);
    const first = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
    const again = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(200);
    expect(again.body.approvalId).toBe(first.body.approvalId);
    await eventually(async () => (await approvalOf(first.body.approvalId)).status === 'AwaitingDecision');
    await new Promise((r) => setTimeout(r, 300));
    expect(sent(first.body.approvalId)).toHaveLength(1);
  });

  // A request over REST is delivered from the delivery queue; one from the runtime's queue is first sent by
  // the worker that takes it in. Both follow the same schedule.
  const requested: Record<string, () => Promise<string>> = {
    'over REST': async () =>
      (await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201)).body
        .approvalId,
    'on the approval-requests queue': async () => {
      const job = await sut.requests.add({ ...approvalRequest(receiver.url), tenantId: runtime.tenantId });
      return (await eventually(async () => (await sut.requests.getJob(job.id!))?.returnvalue)).approvalId;
    },
  };

  it.each(Object.keys(requested))(
    'retries after 2 s, 4 s and 8 s with the same webhook-id, then succeeds (%s)',
    async (via) => {
      let calls = 0;
      receiver.handler = (_req, res) => {
        calls++;
        res.writeHead(calls <= 3 ? 503 : 200).end();
      };
      const approvalId = await requested[via]();
      const hooks = await eventually(() => sent(approvalId).length >= 4 && sent(approvalId), 25000);
      const gaps = hooks.slice(1).map((h, i) => h.at - hooks[i].at);
      expect(gaps[0]).toBeGreaterThanOrEqual(1950);
      // Up to a second late under a loaded machine: still no mistaking them for the next retry's gap.
      expect(gaps[0]).toBeLessThan(3000);
      expect(gaps[1]).toBeGreaterThanOrEqual(3950);
      expect(gaps[1]).toBeLessThan(5000);
      expect(gaps[2]).toBeGreaterThanOrEqual(7950);
      expect(gaps[2]).toBeLessThan(9000);
      expect(new Set(hooks.map((h) => h.headers['webhook-id']))).toEqual(new Set([approvalId]));
      expect(new Set(hooks.map((h) => JSON.parse(h.body).callbackToken)).size).toBe(1);
      await eventually(async () => (await approvalOf(approvalId)).status === 'AwaitingDecision');
      const log = (await approvalOf(approvalId)).log.filter((e: { type: string }) => e.type === 'DeliveryAttempt');
      expect(log.map((e: { attempt: number; httpStatus: number }) => [e.attempt, e.httpStatus])).toEqual([
        [1, 503],
        [2, 503],
        [3, 503],
        [4, 200],
      ]);
    },
    40000,
  );

  it('fails delivery when every attempt fails and emits a DeliveryFailed decision', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example.com' }).end();
    };
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, { maxRetryAttempts: 1 }))
      .expect(201);
    const event = await sut.decision(res.body.approvalId);
    expect(event).toMatchObject({
      approvalId: res.body.approvalId,
      tenantId: runtime.tenantId,
      outcome: 'DeliveryFailed',
      decidedAt: expect.any(String),
    });
    const approval = await approvalOf(res.body.approvalId);
    expect(approval.status).toBe('DeliveryFailed');
    expect(approval.log.map((e: { type: string }) => e.type)).toEqual([
      'Requested',
      'DeliveryAttempt',
      'DeliveryAttempt',
      'DeliveryFailed',
    ]);
    expect(sent(res.body.approvalId)).toHaveLength(2);
  }, 20000);

  it('counts a receiver that does not answer within timeoutSeconds as a failed attempt', async () => {
    receiver.handler = () => undefined; // never answers
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, { timeoutSeconds: 1, maxRetryAttempts: 0 }))
      .expect(201);
    await sut.decision(res.body.approvalId);
    const attempt = (await approvalOf(res.body.approvalId)).log.find(
      (e: { type: string }) => e.type === 'DeliveryAttempt',
    );
    expect(attempt).toMatchObject({ httpStatus: null, error: 'No answer within 1 s' });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(950);
    expect(attempt.durationMs).toBeLessThan(3000);
  });

  it('takes requests from the approval-requests queue, with the tenant the runtime names', async () => {
    const body = { ...approvalRequest(receiver.url), tenantId: runtime.tenantId };
    const job = await sut.requests.add(body);
    const result = await eventually(async () => (await sut.requests.getJob(job.id!))?.returnvalue);
    expect(result).toEqual({ approvalId: expect.any(String), created: true });
    await eventually(() => sent(result.approvalId).length > 0);
    expect((await approvalOf(result.approvalId)).executionId).toBe(body.executionId);
  });

  it('sends attempt 1 once when the runtime queues the same request again while that attempt is in flight', async () => {
    receiver.handler = (_req, res) => void setTimeout(() => res.writeHead(200).end(), 150);
    const body = { ...approvalRequest(receiver.url), tenantId: runtime.tenantId };
    const jobs = [await sut.requests.add(body)];
    await eventually(() => receiver.received.some((r) => r.body.includes(body.executionId)), 10_000, 5);
    jobs.push(await sut.requests.add(body));
    const results = await Promise.all(
      jobs.map((job) => eventually(async () => (await sut.requests.getJob(job.id!))?.returnvalue)),
    );
    expect(results.map((r) => r.created)).toEqual([true, false]);
    await eventually(async () => (await approvalOf(results[0].approvalId)).status === 'AwaitingDecision');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sent(results[0].approvalId)).toHaveLength(1);
  });

  it('fails an invalid queued request without retry and emits InvalidRequest', async () => {
    const job = await sut.requests.add(
      {
        tenantId: runtime.tenantId,
        executionId: 'e-invalid',
        stepId: 's',
        agentName: 'a',
        webhook: { url: 'not a url', authentication: { type: 'Nope' } },
      },
      { attempts: 3 },
    );
    const failed = await eventually(async () => {
      const state = await (await sut.requests.getJob(job.id!))?.getState();
      return state === 'failed' && (await sut.requests.getJob(job.id!));
    });
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toMatch(
      /webhook\.url[\s\S]*webhook\.authentication\.type|webhook\.authentication\.type[\s\S]*webhook\.url/,
    );
    const events = await eventually(async () => {
      const jobs = await sut.decisions.getJobs(['waiting', 'completed']);
      return jobs.find((j) => j.data.executionId === 'e-invalid' && j.data.outcome === 'InvalidRequest');
    });
    expect(events.data).toMatchObject({
      tenantId: runtime.tenantId,
      stepId: 's',
      outcome: 'InvalidRequest',
      comment: expect.stringContaining('webhook'),
    });
  });

  it.each([
    ['a missing webhook', { webhook: undefined }],
    [
      'a timeout over 3600 s',
      { webhook: { url: 'https://x.example.com', authentication: { type: 'None' }, timeoutSeconds: 3601 } },
    ],
    [
      'more than 10 retries',
      { webhook: { url: 'https://x.example.com', authentication: { type: 'None' }, maxRetryAttempts: 11 } },
    ],
    [
      'a message over 2,000 characters',
      { webhook: { url: 'https://x.example.com', authentication: { type: 'None' }, message: 'x'.repeat(2001) } },
    ],
    ['an ApiKey without a key', { webhook: { url: 'https://x.example.com', authentication: { type: 'ApiKey' } } }],
  ])('refuses %s with 400', async (_name, patch) => {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send({ ...approvalRequest(receiver.url), ...patch })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: expect.any(Array) });
  });

  /** A request with this authentication is refused with 400 naming its field. */
  async function expectRefused(url: string, authentication: object, field: string) {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(url, { authentication }))
      .expect(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: `webhook.authentication.${field}` }],
    });
  }

  it.each([
    'Host',
    'content-length',
    'Content-Type',
    'Transfer-Encoding',
    'connection',
    'Webhook-Id',
    'webhook-timestamp',
    'WEBHOOK-SIGNATURE',
    'X Shared',
  ])('refuses CustomHeader %s with 400 naming headerName, and sends nothing', async (headerName) => {
    const authentication = { type: 'CustomHeader', headerName, headerValue: 'v' };
    const url = `${receiver.url}/header-${encodeURIComponent(headerName)}`;
    await expectRefused(url, authentication, 'headerName');
    await http()
      .post('/v1/approvals/test-webhook')
      .set(runtime.auth)
      .send({ webhook: { url, authentication } })
      .expect(400);
    expect(receiver.received.filter((r) => r.path === new URL(url).pathname)).toHaveLength(0);
  });

  it.each([
    ['ApiKey', 'apiKey', { type: 'ApiKey', apiKey: 'key\nX-Injected: 1' }],
    ['BearerToken', 'token', { type: 'BearerToken', token: 'tok€n' }],
    ['CustomHeader', 'headerValue', { type: 'CustomHeader', headerName: 'X-Secret', headerValue: 'a\rb' }],
  ])(
    'refuses a %s value no HTTP header can carry with 400 naming it, and sends nothing',
    async (_type, field, authentication) => {
      const url = `${receiver.url}/unsendable-${field}`;
      await expectRefused(url, authentication, field);
      expect(receiver.received.filter((r) => r.path === new URL(url).pathname)).toHaveLength(0);
    },
  );

  it('fails a queued request whose CustomHeader would set Host and emits InvalidRequest', async () => {
    const body = {
      ...approvalRequest(receiver.url, {
        authentication: { type: 'CustomHeader', headerName: 'Host', headerValue: 'internal.example' },
      }),
      tenantId: runtime.tenantId,
    };
    const job = await sut.requests.add(body, { attempts: 3 });
    const failed = await eventually(async () => {
      const state = await (await sut.requests.getJob(job.id!))?.getState();
      return state === 'failed' && (await sut.requests.getJob(job.id!));
    });
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toMatch(/headerName/);
    const events = await eventually(async () => {
      const jobs = await sut.decisions.getJobs(['waiting', 'completed']);
      return jobs.find((j) => j.data.executionId === body.executionId && j.data.outcome === 'InvalidRequest');
    });
    expect(events.data.comment).toMatch(/headerName/);
  });

  it('answers a test delivery with its outcome and stores nothing', async () => {
    const before = await sut.db.query('SELECT count(*)::int AS n FROM approval.approvals WHERE "tenantId" = $1', [
      runtime.tenantId,
    ]);
    const res = await http()
      .post('/v1/approvals/test-webhook')
      .set(runtime.auth)
      .send({
        webhook: {
          url: `${receiver.url}/test`,
          authentication: { type: 'BearerToken', token: 'tt' },
          message: 'hello',
        },
      })
      .expect(200);
    expect(res.body).toEqual({ delivered: true, httpStatus: 200, durationMs: expect.any(Number), error: null });
    const hook = receiver.received.at(-1)!;
    expect(JSON.parse(hook.body)).toMatchObject({
      test: true,
      agentName: 'test',
      message: 'hello',
      callbackId: null,
      callbackToken: null,
      decisionPageUrl: null,
    });
    expect(hook.headers.authorization).toBe('Bearer tt');
    expect(hook.headers['webhook-signature']).toMatch(/^v1,/);
    expect(
      await sut.db.query('SELECT count(*)::int AS n FROM approval.approvals WHERE "tenantId" = $1', [runtime.tenantId]),
    ).toEqual(before);
    receiver.handler = (_req, r) => {
      r.writeHead(500).end();
    };
    const failed = await http()
      .post('/v1/approvals/test-webhook')
      .set(runtime.auth)
      .send({ webhook: { url: receiver.url, authentication: { type: 'None' } } })
      .expect(200);
    expect(failed.body).toMatchObject({ delivered: false, httpStatus: 500, error: 'HTTP 500' });
  });

  it('never shows or stores readably a callback token or webhook auth value', async () => {
    const secrets = { apiKey: `key-${Date.now()}-secret` };
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, { authentication: { type: 'ApiKey', ...secrets } }))
      .expect(201);
    const [hook] = await eventually(() => sent(res.body.approvalId).length && sent(res.body.approvalId));
    const token = JSON.parse(hook.body).callbackToken;
    await eventually(async () => (await approvalOf(res.body.approvalId)).status === 'AwaitingDecision');
    const views = [
      JSON.stringify(res.body),
      JSON.stringify(await approvalOf(res.body.approvalId)),
      JSON.stringify((await http().get('/v1/approvals').set(runtime.auth)).body),
    ];
    for (const view of views) {
      expect(view).not.toContain(token);
      expect(view).not.toContain(secrets.apiKey);
    }
    const stored = await allStoredText(sut.db);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(secrets.apiKey);
  });
});

describe('Approval webhook URL rules', () => {
  let strict: ApprovalTestApp;
  let runtime: TestCaller;
  beforeAll(async () => {
    strict = await startApprovalApp({ WEBHOOK_ALLOW_INSECURE: false, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false });
    runtime = await testCaller({ roles: ['agent-runtime'] });
  });
  afterAll(() => strict.close());

  it.each([
    ['plain http', 'http://hooks.example.com/a', /https/],
    ['a loopback address', 'https://127.0.0.1/a', /loopback, private/],
    ['the metadata address', 'https://169.254.169.254/latest', /loopback, private/],
    ['a private address', 'https://10.0.0.8/a', /loopback, private/],
    ['localhost', 'https://localhost:8443/a', /loopback, private/],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/a', /loopback, private/],
    ['IPv4-compatible loopback', 'https://[::7f00:1]/a', /loopback, private/],
    ['site-local', 'https://[fec0::1]/a', /loopback, private/],
    ['local-use NAT64', 'https://[64:ff9b:1::a00:1]/a', /loopback, private/],
    ['unique-local', 'https://[fd00::1]/a', /loopback, private/],
    ['CGNAT', 'https://100.64.0.1/a', /loopback, private/],
    ['the unspecified address', 'https://0.0.0.0/a', /loopback, private/],
  ])('refuses %s with 400 naming the rule', async (_name, url, rule) => {
    const res = await request(strict.app.getHttpServer())
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(url))
      .expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(rule) });
    const test = await request(strict.app.getHttpServer())
      .post('/v1/approvals/test-webhook')
      .set(runtime.auth)
      .send({ webhook: { url, authentication: { type: 'None' } } })
      .expect(400);
    expect(test.body.message).toMatch(rule);
  });

  it('checks the address actually connected to: a name that resolves to loopback is refused', async () => {
    const insecure = await startApprovalApp({ WEBHOOK_ALLOW_INSECURE: true, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false });
    const receiver = await new HttpPeer().start();
    try {
      const port = new URL(receiver.url).port;
      // "vm" is this machine's own name: /etc/hosts maps it to 127.0.0.1, as a rebinding DNS would.
      const res = await request(insecure.app.getHttpServer())
        .post('/v1/approvals/test-webhook')
        .set(runtime.auth)
        .send({
          webhook: { url: `http://${require('node:os').hostname()}:${port}/x`, authentication: { type: 'None' } },
        })
        .expect(200);
      // Answered as a host that cannot be reached: the test is no oracle for internal names.
      expect(res.body).toMatchObject({
        delivered: false,
        httpStatus: null,
        error: 'Could not connect to the webhook URL',
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.stop();
      await insecure.close();
    }
  });
});
