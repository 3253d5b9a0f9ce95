import { hostname } from 'node:os';
import request from 'supertest';
import { eventually, HttpPeer, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/**
 * `POST /v1/approvals/test-webhook` must not tell a member which internal names exist: a host name the
 * outbound policy refuses once resolved (a non-public address) answers as a host that cannot be reached.
 */
describe('POST /v1/approvals/test-webhook is no DNS oracle', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;

  beforeAll(async () => {
    sut = await startApprovalApp({ WEBHOOK_ALLOW_INSECURE: true, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false }, 'all');
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  const testWebhook = async (url: string) => {
    const started = Date.now();
    const res = await request(sut.app.getHttpServer())
      .post('/v1/approvals/test-webhook')
      .set(runtime.auth)
      .send({ webhook: { url, authentication: { type: 'None' } } });
    return { res, tookMs: Date.now() - started };
  };

  it('answers a name that resolves to a non-public address as it answers a name that does not resolve', async () => {
    const port = new URL(receiver.url).port;
    // This machine's own name: /etc/hosts maps it to 127.0.0.1, as an internal name would resolve.
    const internal = await testWebhook(`http://${hostname()}:${port}/hook`);
    // `.invalid` never resolves (RFC 6761): a host that cannot be reached.
    const unreachable = await testWebhook(`http://no-such-host.invalid:${port}/hook`);

    const seen = ({ res }: typeof internal) => ({
      status: res.status,
      headers: Object.keys(res.headers)
        .filter((name) => !['date', 'content-length', 'x-request-id'].includes(name))
        .sort(),
      body: { ...res.body, durationMs: typeof res.body.durationMs },
    });
    expect(seen(internal)).toEqual(seen(unreachable));
    expect(internal.res.body).toEqual({
      delivered: false,
      httpStatus: null,
      durationMs: expect.any(Number),
      error: 'Could not connect to the webhook URL',
    });
    // Neither is told apart by its time: both answer at once, without waiting for a receiver.
    for (const { res, tookMs } of [internal, unreachable]) {
      expect(res.body.durationMs).toBeLessThan(1000);
      expect(tookMs).toBeLessThan(2000);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('still names the rule for a URL refused before any resolution (scheme, an address written in it)', async () => {
    const scheme = await testWebhook('ftp://hooks.example.com/hook');
    expect(scheme.res.status).toBe(400);
    expect(scheme.res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/http/) });
    const literal = await testWebhook('http://10.0.0.8/hook');
    expect(literal.res.status).toBe(400);
    expect(literal.res.body.message).toMatch(/loopback, private/);
  });

  it("logs a real approval's attempt to such a name as an attempt to a host that cannot be reached", async () => {
    const port = new URL(receiver.url).port;
    const attemptError = async (url: string) => {
      const created = await request(sut.app.getHttpServer())
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(url, { maxRetryAttempts: 0 }))
        .expect(201);
      const attempt = () =>
        request(sut.app.getHttpServer())
          .get(`/v1/approvals/${created.body.approvalId}`)
          .set(runtime.auth)
          .then((res) => res.body.log.find((e: { type: string }) => e.type === 'DeliveryAttempt'));
      await eventually(async () => Boolean(await attempt()), 30_000);
      return (await attempt()).error;
    };

    const internal = await attemptError(`http://${hostname()}:${port}/hook`);
    expect(internal).toBe(await attemptError(`http://no-such-host.invalid:${port}/hook`));
    expect(internal).toBe('Could not connect to the webhook URL');
    expect(receiver.received).toHaveLength(0);
  });
});
