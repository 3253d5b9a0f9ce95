import Redis from 'ioredis';
import { ApprovalRequestJob, SharedQueue } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { eventually, HttpPeer, isolatedDatabase } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

describe('What stays in Redis', () => {
  let service: ApprovalTestApp;
  let runtime: ApprovalRuntimeClient;
  let receiver: HttpPeer;
  let redis: Redis;
  const consumed = new Set<string>();
  const jobHash = (queue: string, jobId: string) => redis.hgetall(`${service.env.QUEUE_PREFIX}:${queue}:${jobId}`);
  const requestJobId = (body: { tenantId: string; executionId: string; stepId: string }) =>
    `${body.tenantId}:${body.executionId}:${body.stepId}`;

  beforeAll(async () => {
    service = await startApprovalApp();
    redis = new Redis(String(service.env.REDIS_URL));
    runtime = new ApprovalRuntimeClient(String(service.env.REDIS_URL), {
      prefix: String(service.env.QUEUE_PREFIX),
      onDecision: (e) => void consumed.add(e.approvalId),
    });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await runtime?.close();
    redis?.disconnect();
    await service?.close();
  });

  it.each([
    ['BearerToken', { token: 'bearer-secret-0001' }, 'bearer-secret-0001'],
    ['BasicAuth', { username: 'erp-user-0002', password: 'basic-secret-0002' }, 'basic-secret-0002'],
    ['CustomHeader', { headerName: 'X-Shared', headerValue: 'header-secret-0003' }, 'header-secret-0003'],
  ])('keeps no %s value in the request job once the request is taken in', async (type, values, secret) => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    receiver.handler = async (_req, res) => {
      await answered;
      res.writeHead(200).end();
    };
    const body = {
      ...approvalRequest(receiver.url, { authentication: { type, ...values } }),
      tenantId: 'tenant-redis',
    };
    await runtime.request(body as ApprovalRequestJob);
    // The webhook is in flight with the secret: intake is done and Redis must hold it no more.
    const hook = await eventually(() =>
      receiver.received.find((r) => JSON.parse(r.body).executionId === body.executionId),
    );
    expect(JSON.stringify(hook.headers)).toContain(type === 'BasicAuth' ? 'Basic ' : secret);
    expect(JSON.stringify(await jobHash(SharedQueue.ApprovalRequests, requestJobId(body)))).not.toContain(secret);
    answer();
    // The runtime keeps its completed jobs (removeOnComplete: 1000): still nothing.
    const kept = await eventually(async () => {
      const hash = await jobHash(SharedQueue.ApprovalRequests, requestJobId(body));
      return hash.finishedOn && hash;
    });
    expect(JSON.stringify(kept)).not.toContain(secret);
  });

  it('keeps no auth value in a refused request job', async () => {
    const body = {
      ...approvalRequest(receiver.url, {
        authentication: { type: 'ApiKey', apiKey: 'api-secret-0004' },
        timeoutSeconds: 99999,
      }),
      tenantId: 'tenant-redis',
    };
    await runtime.request(body as ApprovalRequestJob);
    const failed = await eventually(async () => {
      const hash = await jobHash(SharedQueue.ApprovalRequests, requestJobId(body));
      return hash.failedReason && hash;
    });
    expect(JSON.stringify(failed)).not.toContain('api-secret-0004');
  });

  it.each([
    ['an array', (secret: string) => [{ type: 'ApiKey', apiKey: secret }]],
    ['a misspelt field', (secret: string) => ({ type: 'ApiKey', apikey: secret })],
    ['a nested value', (secret: string) => ({ type: 'BearerToken', token: { value: secret } })],
    [
      'an unknown field',
      (secret: string) => ({ type: 'CustomHeader', headerName: 'X-Key', extra: { deep: [secret] } }),
    ],
    ['a string', (secret: string) => secret],
    ['an unknown type', (secret: string) => ({ type: secret })],
  ])('keeps no value of a refused request’s authentication of %s', async (_shape, authentication) => {
    const secret = `odd-secret-${Math.random().toString(36).slice(2)}`;
    const body = {
      ...approvalRequest(receiver.url, { authentication: authentication(secret) }),
      tenantId: 'tenant-redis',
    };
    await runtime.request(body as unknown as ApprovalRequestJob);
    const failedJobHash = await eventually(async () => {
      const hash = await jobHash(SharedQueue.ApprovalRequests, requestJobId(body));
      return hash.failedReason && hash;
    });
    expect(failedJobHash.failedReason).toMatch(/^Invalid approval request: /);
    expect(JSON.stringify(failedJobHash)).not.toContain(secret);
    // Nor the InvalidRequest decision the runtime is told.
    const refused = await eventually(async () =>
      (await service.decisions.getJobs(['waiting', 'active', 'completed'])).find(
        (j) => j.data.executionId === body.executionId,
      ),
    );
    expect(refused.data).toMatchObject({ outcome: 'InvalidRequest' });
    expect(JSON.stringify(refused.data)).not.toContain(secret);
  });

  it.each([
    ['an array', (secret: string) => [{ url: receiver.url, authentication: { type: 'ApiKey', apiKey: secret } }]],
    ['an array of arrays', (secret: string) => [[{ authentication: { type: 'BearerToken', token: secret } }]]],
    ['a string', (secret: string) => `http://user:${secret}@127.0.0.1:9/hook`],
  ])('keeps nothing of a refused request’s webhook that is %s', async (_shape, webhook) => {
    const secret = `odd-webhook-secret-${Math.random().toString(36).slice(2)}`;
    const body = { ...approvalRequest(receiver.url), webhook: webhook(secret), tenantId: 'tenant-redis' };
    await runtime.request(body as unknown as ApprovalRequestJob);
    const failedJobHash = await eventually(async () => {
      const hash = await jobHash(SharedQueue.ApprovalRequests, requestJobId(body));
      return hash.failedReason && hash;
    });
    expect(failedJobHash.failedReason).toMatch(/^Invalid approval request: /);
    expect(JSON.stringify(failedJobHash)).not.toContain(secret);
    expect(JSON.parse(failedJobHash.data)).toEqual({
      executionId: body.executionId,
      stepId: body.stepId,
      agentName: body.agentName,
      stepInput: body.stepInput,
      previousResults: body.previousResults,
      tenantId: body.tenantId,
    });
  });

  it('bounds how long a consumed decision job is kept', async () => {
    receiver.handler = (_req, res) => void res.writeHead(200).end();
    const body = { ...approvalRequest(receiver.url, { maxRetryAttempts: 0 }), tenantId: 'tenant-redis' };
    await runtime.request(body as ApprovalRequestJob);
    const hook = await eventually(() =>
      receiver.received.find((r) => JSON.parse(r.body).executionId === body.executionId),
    );
    const { approvalId, callbackId, callbackToken } = JSON.parse(hook.body);
    await fetch(`${service.url}/v1/AgentExecutionWebhookApproval/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ callbackId, callbackToken, status: 'Denied' }),
    });
    await eventually(() => consumed.has(approvalId));
    const hash = await eventually(async () => {
      const h = await jobHash(SharedQueue.ApprovalDecisions, approvalId);
      return h.finishedOn && h;
    });
    const { removeOnComplete } = JSON.parse(hash.opts);
    expect(removeOnComplete).toEqual({ age: expect.any(Number), count: expect.any(Number) });
    expect(removeOnComplete.age).toBeLessThanOrEqual(24 * 3600);
    expect(removeOnComplete.count).toBeLessThanOrEqual(10_000);
  });
});

describe('What stays in Redis when intake fails for good', () => {
  let service: ApprovalTestApp;
  let runtime: ApprovalRuntimeClient;
  let redis: Redis;

  beforeAll(async () => {
    // A database of its own: the test breaks it.
    service = await startApprovalApp({ DATABASE_URL: await isolatedDatabase() });
    redis = new Redis(String(service.env.REDIS_URL));
    runtime = new ApprovalRuntimeClient(String(service.env.REDIS_URL), {
      prefix: String(service.env.QUEUE_PREFIX),
      onDecision: () => undefined,
    });
  });
  afterAll(async () => {
    await runtime?.close();
    redis?.disconnect();
    await service?.close();
  });

  it('keeps no auth value in a request job that fails on its last attempt for a reason that is not the request', async () => {
    await service.db.query('ALTER TABLE approval.approvals RENAME TO approvals_gone');
    const body = {
      ...approvalRequest('http://127.0.0.1:9/hook', { authentication: { type: 'ApiKey', apiKey: 'api-secret-0005' } }),
      tenantId: 'tenant-redis',
    };
    await runtime.request(body as ApprovalRequestJob);
    const failed = await eventually(async () => {
      const hash = await redis.hgetall(
        `${service.env.QUEUE_PREFIX}:${SharedQueue.ApprovalRequests}:${body.tenantId}:${body.executionId}:${body.stepId}`,
      );
      return hash.failedReason && hash;
    });
    expect(JSON.stringify(failed)).not.toContain('api-secret-0005');
  });
});
