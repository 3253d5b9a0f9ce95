import { SignJWT } from 'jose';
import request from 'supertest';
import { eventually, HttpPeer, testCaller, TestCaller, TEST_JWT_SECRET } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/** CONTRACT.md, "Safe by default": who sees a webhook's URL, and how long and how many webhook tests may run. */
describe('Approval service: safe by default', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let hanging: HttpPeer;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startApprovalApp({ WEBHOOK_TEST_MAX_SECONDS: 2 });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    // Never answers: the test delivery waits until its cap.
    hanging = await new HttpPeer(() => undefined).start();
  });
  afterAll(async () => {
    await receiver.stop();
    await hanging.stop();
    await sut.close();
  });

  describe('webhook.url', () => {
    const secretPath = '/hooks/T000/B000/s3cr3t-path-token?sig=abc';

    it('is shown whole to admin and agent-runtime; any other member of the tenant sees its origin only', async () => {
      const created = await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(`${receiver.url}${secretPath}`))
        .expect(201);
      const { approvalId } = created.body;
      const admin = await testCaller({ tenantId: runtime.tenantId, roles: ['admin'] });
      const viewer = await testCaller({ tenantId: runtime.tenantId, roles: ['viewer'] });
      const noRoles = await testCaller({ tenantId: runtime.tenantId });

      for (const whole of [runtime, admin]) {
        const one = await http().get(`/v1/approvals/${approvalId}`).set(whole.auth).expect(200);
        expect(one.body.webhook.url).toBe(`${receiver.url}${secretPath}`);
        const list = await http().get('/v1/approvals').set(whole.auth).expect(200);
        expect(list.body.find((a: { id: string }) => a.id === approvalId).webhook.url).toBe(
          `${receiver.url}${secretPath}`,
        );
      }
      for (const other of [viewer, noRoles]) {
        const one = await http().get(`/v1/approvals/${approvalId}`).set(other.auth).expect(200);
        expect(one.body.webhook.url).toBe(receiver.url);
        const list = await http().get('/v1/approvals').set(other.auth).expect(200);
        const listed = JSON.stringify(list.body);
        expect(listed).toContain(approvalId);
        expect(listed).not.toContain('s3cr3t-path-token');
      }
    });
  });

  describe('POST /v1/approvals/test-webhook', () => {
    const test = (caller: TestCaller, url = hanging.url) =>
      http()
        .post('/v1/approvals/test-webhook')
        .set(caller.auth)
        .send({ webhook: { url, authentication: { type: 'None' }, timeoutSeconds: 3600 } });

    it('waits at most WEBHOOK_TEST_MAX_SECONDS whatever timeoutSeconds asks (3600 here)', async () => {
      const started = Date.now();
      const res = await test(runtime).expect(200);
      expect(res.body).toMatchObject({ delivered: false, httpStatus: null });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(Date.now() - started).toBeLessThan(6000);
    });

    it('runs two at a time per tenant: a third answers 429 TOO_MANY_TESTS at once; another tenant is not held', async () => {
      const before = hanging.received.length;
      // supertest sends on then(): start both now.
      const running = [test(runtime).then((r) => r), test(runtime).then((r) => r)];
      await eventually(() => hanging.received.length >= before + 2);
      const started = Date.now();
      const third = await test(runtime).expect(429);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(third.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        code: 'TOO_MANY_TESTS',
        message: expect.stringContaining('2'),
        details: [],
      });
      expect(third.headers['retry-after']).toBeDefined();
      const other = await testCaller({ roles: ['admin'] });
      await test(other, receiver.url).expect(200, /"delivered":true/);

      for (const res of await Promise.all(running)) expect(res.status).toBe(200);
      await test(runtime, receiver.url).expect(200, /"delivered":true/);
    });
  });

  describe('platform tokens live at most JWT_MAX_TTL (default 24 h)', () => {
    const HOUR = 3600;
    const now = () => Math.floor(Date.now() / 1000);
    async function token(claims: { iat?: number; exp: number }) {
      const jwt = new SignJWT({ tenant: runtime.tenantId, roles: ['agent-runtime'], ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('someone');
      return jwt.sign(new TextEncoder().encode(TEST_JWT_SECRET));
    }
    const status = async (claims: { iat?: number; exp: number }) =>
      (
        await http()
          .get('/v1/approvals')
          .set('Authorization', `Bearer ${await token(claims)}`)
      ).status;

    it('takes a token whose exp - iat is at most 24 h, and refuses a longer one with 401', async () => {
      expect(await status({ iat: now(), exp: now() + 24 * HOUR })).toBe(200);
      expect(await status({ iat: now() - 23 * HOUR, exp: now() + HOUR })).toBe(200);
      expect(await status({ iat: now(), exp: now() + 24 * HOUR + 60 })).toBe(401);
      expect(await status({ iat: now(), exp: now() + 100 * 365 * 24 * HOUR })).toBe(401);
      const res = await http()
        .get('/v1/approvals')
        .set('Authorization', `Bearer ${await token({ iat: now() - 48 * HOUR, exp: now() + HOUR })}`)
        .expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
    });

    it('without iat (or with one in the future), takes a token only while it has at most 24 h left', async () => {
      expect(await status({ exp: now() + HOUR })).toBe(200);
      expect(await status({ exp: now() + 25 * HOUR })).toBe(401);
      expect(await status({ iat: now() + 100 * 24 * HOUR, exp: now() + 100 * 24 * HOUR + HOUR })).toBe(401);
    });

    it('follows JWT_MAX_TTL', async () => {
      const strict = await startApprovalApp({ JWT_MAX_TTL: HOUR });
      try {
        const get = async (exp: number) =>
          (
            await request(strict.app.getHttpServer())
              .get('/v1/approvals')
              .set('Authorization', `Bearer ${await token({ iat: now(), exp })}`)
          ).status;
        expect(await get(now() + HOUR)).toBe(200);
        expect(await get(now() + 2 * HOUR)).toBe(401);
      } finally {
        await strict.close();
      }
    });
  });
});
