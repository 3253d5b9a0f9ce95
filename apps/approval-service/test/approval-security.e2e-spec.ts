import { SignJWT } from 'jose';
import request from 'supertest';
import { signPlatformToken } from '@app/auth';
import { HttpPeer, eventually, testCaller, TestCaller, TEST_JWT_SECRET } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';

/** `body` with an own key (even `__proto__`) set at `path`, as JSON text the way an attacker writes it. */
function withKey(body: object, path: string[], key: string, value: unknown): string {
  const copy = JSON.parse(JSON.stringify(body));
  const target = path.reduce((node, step) => node[step], copy);
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  return JSON.stringify(copy);
}

describe('Approval security', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let elsewhere: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const sent = (peer: HttpPeer, approvalId: string) =>
    peer.received.filter((r) => r.headers['webhook-id'] === approvalId);
  const postJson = (path: string, text: string, auth: Record<string, string> = runtime.auth) =>
    http().post(path).set(auth).set('Content-Type', 'application/json').send(text);
  const invalidDecision = (executionId: string) =>
    eventually(async () =>
      (await sut.decisions.getJobs(['waiting', 'completed'])).find(
        (j) => j.data.executionId === executionId && j.data.outcome === 'InvalidRequest',
      ),
    );

  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    elsewhere = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await elsewhere.stop();
    await sut.close();
  });

  async function delivered() {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201);
    const [hook] = await eventually(
      () => sent(receiver, res.body.approvalId).length && sent(receiver, res.body.approvalId),
    );
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    return { approvalId: res.body.approvalId as string, callbackId, callbackToken };
  }

  describe('roles', () => {
    it('refuses create, cancel and test-webhook with 403 to a user without agent-runtime or admin', async () => {
      const plain = await testCaller({ tenantId: runtime.tenantId, roles: ['viewer'] });
      const create = await http().post('/v1/approvals').set(plain.auth).send(approvalRequest(receiver.url)).expect(403);
      expect(create.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN', details: [] });
      const { approvalId } = await delivered();
      const before = (
        await eventually(async () => {
          const res = await http().get(`/v1/approvals/${approvalId}`).set(runtime.auth).expect(200);
          return res.body.status === 'AwaitingDecision' && res.body;
        })
      ).status;
      await http().post(`/v1/approvals/${approvalId}/cancel`).set(plain.auth).expect(403);
      await http()
        .post('/v1/approvals/test-webhook')
        .set(plain.auth)
        .send({ webhook: { url: receiver.url, authentication: { type: 'None' } } })
        .expect(403);
      const read = await http().get(`/v1/approvals/${approvalId}`).set(plain.auth).expect(200);
      expect(read.body.status).toBe(before);
      await http().get('/v1/approvals').set(plain.auth).expect(200);
    });

    it('lets agent-runtime and admin create, test and cancel', async () => {
      const admin = await testCaller({ tenantId: runtime.tenantId, roles: ['admin'] });
      const res = await http().post('/v1/approvals').set(admin.auth).send(approvalRequest(receiver.url)).expect(201);
      await http()
        .post('/v1/approvals/test-webhook')
        .set(runtime.auth)
        .send({ webhook: { url: receiver.url, authentication: { type: 'None' } } })
        .expect(200);
      const cancelled = await http().post(`/v1/approvals/${res.body.approvalId}/cancel`).set(runtime.auth).expect(200);
      expect(cancelled.body.status).toBe('Cancelled');
    });
  });

  describe('repeats of (executionId, stepId)', () => {
    const bearer = { authentication: { type: 'BearerToken', token: 'first-token' } };

    it('answers an identical repeat with 200 and the same approval', async () => {
      const body = approvalRequest(receiver.url, bearer);
      const first = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
      const again = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(200);
      expect(again.body).toEqual({
        approvalId: first.body.approvalId,
        callbackId: first.body.callbackId,
        status: expect.any(String),
      });
    });

    it.each([
      [
        'another URL',
        (b: ReturnType<typeof approvalRequest>, other: string) => ({ ...b, webhook: { ...b.webhook, url: other } }),
      ],
      [
        'another auth token value',
        (b: ReturnType<typeof approvalRequest>) => ({
          ...b,
          webhook: { ...b.webhook, authentication: { type: 'BearerToken', token: 'second-token' } },
        }),
      ],
      ['another agentName', (b: ReturnType<typeof approvalRequest>) => ({ ...b, agentName: 'Someone else' })],
      [
        'another message',
        (b: ReturnType<typeof approvalRequest>) => ({ ...b, webhook: { ...b.webhook, message: 'Approve PO 4712?' } }),
      ],
      [
        'another timeout',
        (b: ReturnType<typeof approvalRequest>) => ({ ...b, webhook: { ...b.webhook, timeoutSeconds: 9 } }),
      ],
    ])('answers a repeat with %s with 409 APPROVAL_CONFLICT and sends nothing', async (_name, change) => {
      const body = approvalRequest(receiver.url, bearer);
      const first = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
      await eventually(() => sent(receiver, first.body.approvalId).length);
      const res = await http().post('/v1/approvals').set(runtime.auth).send(change(body, elsewhere.url)).expect(409);
      expect(res.body).toMatchObject({ statusCode: 409, code: 'APPROVAL_CONFLICT', details: [] });
      expect(JSON.stringify(res.body)).not.toContain('first-token');
      await new Promise((r) => setTimeout(r, 300));
      expect(sent(receiver, first.body.approvalId)).toHaveLength(1);
      expect(sent(elsewhere, first.body.approvalId)).toHaveLength(0);
    });

    it('keeps the first of two differing queued requests and drops the repeat', async () => {
      const body = { ...approvalRequest(receiver.url, bearer), tenantId: runtime.tenantId };
      const first = await sut.requests.add(body);
      const { approvalId } = await eventually(async () => (await sut.requests.getJob(first.id!))?.returnvalue);
      const repeat = await sut.requests.add({ ...body, webhook: { ...body.webhook, url: elsewhere.url } });
      expect(await eventually(async () => (await sut.requests.getJob(repeat.id!))?.returnvalue)).toEqual({
        approvalId,
        created: false,
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(sent(elsewhere, approvalId)).toHaveLength(0);
      expect(sent(receiver, approvalId)).toHaveLength(1);
    });

    it('never stores the fingerprinted secret in the clear', async () => {
      const token = `tok-${Date.now()}-secret`;
      await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(receiver.url, { authentication: { type: 'BearerToken', token } }))
        .expect(201);
      const rows: Array<{ row: string }> = await sut.db.query(
        'SELECT row_to_json(a)::text AS row FROM approval.approvals a',
      );
      expect(rows.map((r) => r.row).join('\n')).not.toContain(token);
    });
  });

  describe('body policy', () => {
    const base = () => approvalRequest(receiver.url, { authentication: { type: 'ApiKey', apiKey: 'k' } });

    it.each([
      ['constructor', [], 'constructor'],
      ['__proto__', [], '__proto__'],
      ['prototype', [], 'prototype'],
      ['webhook.constructor', ['webhook'], 'constructor'],
      ['webhook.__proto__', ['webhook'], '__proto__'],
      ['webhook.authentication.prototype', ['webhook', 'authentication'], 'prototype'],
      ['webhook.authentication.__proto__', ['webhook', 'authentication'], '__proto__'],
      ['webhook.authentication.constructor', ['webhook', 'authentication'], 'constructor'],
    ])('refuses a request with %s with 400 VALIDATION_FAILED and creates nothing', async (name, path, key) => {
      const body = base();
      const res = await postJson('/v1/approvals', withKey(body, path as string[], key, { polluted: true })).expect(400);
      expect(res.body).toMatchObject({
        statusCode: 400,
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: name })],
      });
      const rows = await sut.db.query('SELECT 1 FROM approval.approvals WHERE "executionId" = $1', [body.executionId]);
      expect(rows).toHaveLength(0);
    });

    it('keeps prototype-named keys in free-form fields as data', async () => {
      const body = base();
      const text = withKey(
        withKeyObject(body, 'stepInput', { constructor: 'c', prototype: 'p' }),
        ['stepInput'],
        '__proto__',
        { x: 1 },
      );
      const res = await postJson('/v1/approvals', text).expect(201);
      const [hook] = await eventually(
        () => sent(receiver, res.body.approvalId).length && sent(receiver, res.body.approvalId),
      );
      expect(JSON.parse(hook.body).stepInput).toEqual(
        JSON.parse('{"purchaseOrder":4711,"amount":1250.5,"constructor":"c","prototype":"p","__proto__":{"x":1}}'),
      );
    });

    it.each([
      ['agentName', (b: ReturnType<typeof approvalRequest>) => ({ ...b, agentName: 'Procure\u0000ment' })],
      [
        'webhook.message',
        (b: ReturnType<typeof approvalRequest>) => ({ ...b, webhook: { ...b.webhook, message: 'a\u0000b' } }),
      ],
      ['stepInput.note', (b: ReturnType<typeof approvalRequest>) => ({ ...b, stepInput: { note: 'x\u0000' } })],
      ['previousResults[0]', (b: ReturnType<typeof approvalRequest>) => ({ ...b, previousResults: ['\u0000'] })],
    ])('refuses U+0000 in %s with 400, not 500', async (field, change) => {
      const res = await http().post('/v1/approvals').set(runtime.auth).send(change(base())).expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
    });

    it.each([
      ['stepInput.note', (b: ReturnType<typeof approvalRequest>) => ({ ...b, stepInput: { note: 'x\ud800' } })],
      ['previousResults[0]', (b: ReturnType<typeof approvalRequest>) => ({ ...b, previousResults: ['\udc00y'] })],
      ['stepInput.a\\ud800', (b: ReturnType<typeof approvalRequest>) => ({ ...b, stepInput: { 'a\ud800': 1 } })],
      ['agentName', (b: ReturnType<typeof approvalRequest>) => ({ ...b, agentName: 'Procure\udbffment' })],
    ])('refuses a lone surrogate (half of a character) in %s with 400, not 500', async (field, change) => {
      const res = await http().post('/v1/approvals').set(runtime.auth).send(change(base())).expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
    });

    it.each([
      ['constructor', (a: Record<string, unknown>) => withKey(a, [], 'constructor', { prototype: { polluted: true } })],
      ['__proto__', (a: Record<string, unknown>) => withKey(a, [], '__proto__', { status: 'Denied' })],
      ['U+0000 in the comment', (a: Record<string, unknown>) => JSON.stringify({ ...a, comment: 'ok\u0000' })],
      [
        'a lone surrogate in the output',
        (a: Record<string, unknown>) => JSON.stringify({ ...a, output: { note: 'x\ud800' } }),
      ],
    ])('refuses a callback with %s with 400 and leaves the approval undecided', async (_name, build) => {
      const a = await delivered();
      const res = await postJson(
        CALLBACK,
        build({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Approved' }),
        {},
      ).expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
      const approval = await http().get(`/v1/approvals/${a.approvalId}`).set(runtime.auth).expect(200);
      expect(['Pending', 'AwaitingDecision']).toContain(approval.body.status);
    });

    it.each([
      ['webhook.constructor', (b: object) => JSON.parse(withKey(b, ['webhook'], 'constructor', 1))],
      ['__proto__', (b: object) => JSON.parse(withKey(b, [], '__proto__', { x: 1 }))],
      [
        'webhook.authentication.prototype',
        (b: object) => JSON.parse(withKey(b, ['webhook', 'authentication'], 'prototype', 'x')),
      ],
      ['U+0000 in agentName', (b: object) => ({ ...b, agentName: 'a\u0000' })],
      ['U+0000 in stepInput', (b: object) => ({ ...b, stepInput: { note: '\u0000' } })],
      ['a lone surrogate in stepInput', (b: object) => ({ ...b, stepInput: { note: '\ud800' } })],
    ])('ends a queued request with %s in an InvalidRequest decision, without retry', async (_name, build) => {
      const body = { ...base(), tenantId: runtime.tenantId };
      const job = await sut.requests.add(build(body), { attempts: 3 });
      const decision = await invalidDecision(body.executionId);
      expect(decision.data).toMatchObject({ tenantId: runtime.tenantId, outcome: 'InvalidRequest' });
      const failed = await eventually(
        async () =>
          (await (await sut.requests.getJob(job.id!))?.getState()) === 'failed' && (await sut.requests.getJob(job.id!)),
      );
      expect(failed.attemptsMade).toBe(1);
      const rows = await sut.db.query('SELECT 1 FROM approval.approvals WHERE "executionId" = $1', [body.executionId]);
      expect(rows).toHaveLength(0);
    });
    it.each([
      ['U+0000', 'step\u0000one'],
      ['a lone surrogate', 'step\ud800one'],
    ])('still tells the runtime when the echoed ids carry %s', async (_what, stepId) => {
      const body = { ...base(), tenantId: runtime.tenantId, stepId };
      await sut.requests.add(body);
      const decision = await eventually(async () =>
        (await sut.decisions.getJobs(['waiting', 'completed'])).find(
          (j) => j.data.executionId === body.executionId && j.data.outcome === 'InvalidRequest',
        ),
      );
      expect(decision.data.stepId).toBe('step\ufffdone');
      expect(decision.data.comment).toContain('stepId');
    });

    it('refuses free-form data nested deeper than the limit with 400', async () => {
      let deep: unknown = 'leaf';
      for (let i = 0; i < 3000; i++) deep = { next: deep };
      const res = await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send({ ...base(), stepInput: deep })
        .expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/nested/) });
    });
  });

  describe('platform tokens', () => {
    it('refuses a token without exp with 401', async () => {
      const token = await new SignJWT({ tenant: runtime.tenantId, roles: ['agent-runtime'] })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(runtime.userId)
        .setIssuedAt()
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
      const res = await http()
        .get('/v1/approvals')
        .set({ Authorization: `Bearer ${token}` })
        .expect(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    });

    it('checks iss and aud when AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE are set', async () => {
      const strict = await startApprovalApp({
        AUTH_JWT_ISSUER: 'https://id.example.com',
        AUTH_JWT_AUDIENCE: 'approval-service',
      });
      try {
        const claims = { userId: runtime.userId, tenantId: runtime.tenantId, roles: ['agent-runtime'] };
        const get = (token: string) =>
          request(strict.app.getHttpServer())
            .get('/v1/approvals')
            .set({ Authorization: `Bearer ${token}` });
        await get(
          await signPlatformToken(TEST_JWT_SECRET, claims, '5m', {
            issuer: 'https://id.example.com',
            audience: 'approval-service',
          }),
        ).expect(200);
        await get(
          await signPlatformToken(TEST_JWT_SECRET, claims, '5m', {
            issuer: 'https://evil.example.com',
            audience: 'approval-service',
          }),
        ).expect(401);
        await get(
          await signPlatformToken(TEST_JWT_SECRET, claims, '5m', {
            issuer: 'https://id.example.com',
            audience: 'connector-service',
          }),
        ).expect(401);
        await get(await signPlatformToken(TEST_JWT_SECRET, claims, '5m')).expect(401);
      } finally {
        await strict.close();
      }
    });
  });
});

function withKeyObject<T extends object>(body: T, key: string, extra: Record<string, unknown>): T {
  const copy = JSON.parse(JSON.stringify(body));
  Object.assign(copy[key], extra);
  return copy;
}
