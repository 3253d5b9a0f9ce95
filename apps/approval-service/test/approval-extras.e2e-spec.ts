import Bull from 'bull';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { HttpPeer, eventually, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const OLD_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const NEW_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
type LogEntry = {
  type: string;
  at: string;
  attempt: number | null;
  error: string | null;
  comment: string | null;
  decidedBy: string | null;
};

// First in the file: an app started in this process leaves its configuration in process.env for the next.
describe('Approval decision deadline bounds (default configuration)', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
  });
  afterAll(() => sut.close());

  it('refuses a deadline under 60 s over REST (400) and on the queue (InvalidRequest)', async () => {
    const body = approvalRequest('http://127.0.0.1:9/hook', {}, { decisionTimeoutSeconds: 59 });
    const res = await request(sut.app.getHttpServer()).post('/v1/approvals').set(runtime.auth).send(body).expect(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'decisionTimeoutSeconds must not be less than 60',
      details: [{ field: 'decisionTimeoutSeconds' }],
    });
    const job = await sut.requests.add({ ...body, tenantId: runtime.tenantId });
    const refused = await eventually(async () =>
      (await sut.decisions.getJobs(['waiting', 'completed'])).find((j) => j.data.executionId === body.executionId),
    );
    expect(refused.data).toMatchObject({ outcome: 'InvalidRequest', decidedBy: null });
    expect(refused.data.comment).toContain('decisionTimeoutSeconds');
    // An invalid queued request fails at once and is not tried again.
    const taken = (await sut.requests.getJob(job.id!))!;
    expect({ state: await taken.getState(), attemptsMade: taken.attemptsMade }).toEqual({
      state: 'failed',
      attemptsMade: 1,
    });
    await request(sut.app.getHttpServer())
      .post('/v1/approvals')
      .set(runtime.auth)
      .send({ ...body, decisionTimeoutSeconds: 60 })
      .expect(201);
  });
});

describe('Approval extras', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;
  const sent = (approvalId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === approvalId);
  const types = (log: LogEntry[]) => log.map((e) => e.type);

  beforeAll(async () => {
    // The test lowers the shortest allowed decision deadline (production default 60 s) to keep it short.
    // A database of its own: on the run's shared one, another test file's sweep would time these approvals
    // out and publish the decision under its own queue prefix.
    sut = await startApprovalApp({
      WEBHOOK_SIGNING_SECRET: `${OLD_SECRET} ${NEW_SECRET}`,
      DECISION_TIMEOUT_MIN_SECONDS: 1,
      DATABASE_URL: await isolatedDatabase(),
    });
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

  async function delivered(extra: Record<string, unknown> = {}, webhook: Record<string, unknown> = {}) {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, webhook, extra))
      .expect(201);
    const hook = await eventually(() => sent(res.body.approvalId)[0]);
    await eventually(async () => (await approvalOf(res.body.approvalId)).status === 'AwaitingDecision');
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    return { approvalId: res.body.approvalId as string, callbackId, callbackToken, hook };
  }

  describe('decision deadline', () => {
    it('times out an undecided approval on time: TimedOut, one log entry, one event, a later callback gets 409', async () => {
      const a = await delivered({ decisionTimeoutSeconds: 2 });
      expect((await approvalOf(a.approvalId)).decisionDueAt).toEqual(expect.any(String));
      const event = await sut.decision(a.approvalId, 10000);
      expect(event).toMatchObject({ approvalId: a.approvalId, outcome: 'TimedOut', comment: null, decidedBy: null });
      const approval = await approvalOf(a.approvalId);
      expect(approval.status).toBe('TimedOut');
      expect(types(approval.log)).toEqual(['Requested', 'DeliveryAttempt', 'Delivered', 'TimedOut']);
      const late = Date.parse(approval.log[3].at) - Date.parse(approval.createdAt);
      expect(late).toBeGreaterThanOrEqual(2000);
      expect(late).toBeLessThan(4000);
      const callback = await http()
        .post(CALLBACK)
        .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Approved' })
        .expect(409);
      expect(callback.body).toMatchObject({ code: 'APPROVAL_NOT_PENDING' });
      expect(await sut.decisionCount(a.approvalId)).toBe(1);
    });

    it('takes the deadline from a queued request too', async () => {
      const body = approvalRequest(receiver.url, {}, { decisionTimeoutSeconds: 1 });
      await sut.requests.add({ ...body, tenantId: runtime.tenantId });
      const approval = await eventually(
        async () => (await http().get(`/v1/approvals?executionId=${body.executionId}`).set(runtime.auth)).body[0],
      );
      expect((await sut.decision(approval.id, 10000)).outcome).toBe('TimedOut');
    });

    it('still times out when the deadline job was lost (the sweep catches it)', async () => {
      const res = await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(receiver.url, {}, { decisionTimeoutSeconds: 2 }))
        .expect(201);
      const deadlines = new Bull('approval-decision-timeouts', String(sut.env.REDIS_URL), {
        prefix: String(sut.env.QUEUE_PREFIX),
      });
      try {
        const job = await eventually(() => deadlines.getJob(res.body.approvalId));
        await job.remove();
      } finally {
        await deadlines.close();
      }
      expect((await sut.decision(res.body.approvalId, 10000)).outcome).toBe('TimedOut');
      expect(await sut.decisionCount(res.body.approvalId)).toBe(1);
    });

    it('refuses a decision or a cancel past the deadline though no worker has timed it out yet: 409, TimedOut, one event', async () => {
      for (const decide of [
        (a: { callbackId: string; callbackToken: string }) =>
          http().post(CALLBACK).send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Approved' }),
        (a: { approvalId: string }) => http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth),
      ]) {
        const a = await delivered({ decisionTimeoutSeconds: 60 });
        // The deadline passed a second ago; its job and the sweep (every 2 s) have not come yet.
        await sut.db.query(
          `UPDATE approval.approvals SET "decisionDueAt" = clock_timestamp() - interval '1 second' WHERE id = $1`,
          [a.approvalId],
        );
        const late = await decide(a);
        expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'APPROVAL_NOT_PENDING' });
        const approval = await approvalOf(a.approvalId);
        expect(approval.status).toBe('TimedOut');
        expect(approval.log.at(-1)).toMatchObject({
          type: 'TimedOut',
          error: 'No decision before the decision deadline',
        });
        expect((await sut.decision(a.approvalId, 10000)).outcome).toBe('TimedOut');
        expect(await sut.decisionCount(a.approvalId)).toBe(1);
      }
    });

    it('refuses a deadline outside its bounds with 400 naming the field', async () => {
      for (const decisionTimeoutSeconds of [0, 2_592_001, 1.5]) {
        const res = await http()
          .post('/v1/approvals')
          .set(runtime.auth)
          .send(approvalRequest(receiver.url, {}, { decisionTimeoutSeconds }))
          .expect(400);
        expect(res.body).toMatchObject({
          code: 'VALIDATION_FAILED',
          details: [expect.objectContaining({ field: 'decisionTimeoutSeconds' })],
        });
      }
    });
  });

  describe('redelivery', () => {
    it('sends one more attempt with the same body, credentials and webhook-id; the status stays; the callback then decides', async () => {
      const a = await delivered();
      const res = await http().post(`/v1/approvals/${a.approvalId}/redeliver`).set(runtime.auth).expect(202);
      expect(res.body).toEqual({ approvalId: a.approvalId, attempt: 2 });
      const [, again] = await eventually(() => sent(a.approvalId).length === 2 && sent(a.approvalId));
      expect(again.headers['webhook-id']).toBe(a.approvalId);
      expect(again.body).toBe(a.hook.body);
      await eventually(async () =>
        (await approvalOf(a.approvalId)).log.some((e: LogEntry) => e.type === 'DeliveryAttempt' && e.attempt === 2),
      );
      const approval = await approvalOf(a.approvalId);
      expect(approval.status).toBe('AwaitingDecision');
      expect(types(approval.log)).toEqual(['Requested', 'DeliveryAttempt', 'Delivered', 'DeliveryAttempt']);
      const { callbackId, callbackToken } = JSON.parse(again.body);
      await http().post(CALLBACK).send({ callbackId, callbackToken, status: 'Approved' }).expect(200);
      expect((await sut.decision(a.approvalId)).outcome).toBe('Approved');
    });

    it('answers 409 APPROVAL_NOT_AWAITING while Pending and once decided', async () => {
      receiver.handler = (_req, res) => {
        res.writeHead(500).end();
      };
      const pending = await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(receiver.url, { maxRetryAttempts: 10 }))
        .expect(201);
      await eventually(() => sent(pending.body.approvalId).length);
      const refused = await http()
        .post(`/v1/approvals/${pending.body.approvalId}/redeliver`)
        .set(runtime.auth)
        .expect(409);
      expect(refused.body).toMatchObject({ code: 'APPROVAL_NOT_AWAITING', details: [] });
      await http().post(`/v1/approvals/${pending.body.approvalId}/cancel`).set(runtime.auth).expect(200);

      receiver.handler = (_req, res) => {
        res.writeHead(200).end();
      };
      const a = await delivered();
      await http()
        .post(CALLBACK)
        .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Denied' })
        .expect(200);
      expect(
        (await http().post(`/v1/approvals/${a.approvalId}/redeliver`).set(runtime.auth).expect(409)).body.code,
      ).toBe('APPROVAL_NOT_AWAITING');
      expect(sent(a.approvalId)).toHaveLength(1);
    });

    it('answers 409 APPROVAL_NOT_AWAITING and sends nothing past the decision deadline, though no worker has timed it out yet', async () => {
      const a = await delivered({ decisionTimeoutSeconds: 60 });
      // The deadline passed a second ago; its job and the sweep (every 2 s) have not come yet.
      await sut.db.query(
        `UPDATE approval.approvals SET "decisionDueAt" = clock_timestamp() - interval '1 second' WHERE id = $1`,
        [a.approvalId],
      );
      const late = await http().post(`/v1/approvals/${a.approvalId}/redeliver`).set(runtime.auth);
      expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'APPROVAL_NOT_AWAITING' });
      expect(late.body.message).toContain('TimedOut');
      // The receiver gets no request for a decision that every way of deciding would refuse.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(sent(a.approvalId)).toHaveLength(1);
    });

    it('refuses a user without agent-runtime or admin with 403', async () => {
      const a = await delivered();
      const plain = await testCaller({ tenantId: runtime.tenantId, roles: ['viewer'] });
      expect((await http().post(`/v1/approvals/${a.approvalId}/redeliver`).set(plain.auth).expect(403)).body.code).toBe(
        'FORBIDDEN',
      );
      const admin = await testCaller({ tenantId: runtime.tenantId, roles: ['admin'] });
      await http().post(`/v1/approvals/${a.approvalId}/redeliver`).set(admin.auth).expect(202);
    });
  });

  it('ends delivery at a 410 answer: DeliveryFailed after one attempt, the reason in the log', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(410).end('gone');
    };
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, { maxRetryAttempts: 3 }))
      .expect(201);
    expect((await sut.decision(res.body.approvalId)).outcome).toBe('DeliveryFailed');
    await new Promise((r) => setTimeout(r, 2500));
    expect(sent(res.body.approvalId)).toHaveLength(1);
    const approval = await approvalOf(res.body.approvalId);
    expect(approval.status).toBe('DeliveryFailed');
    expect(types(approval.log)).toEqual(['Requested', 'DeliveryAttempt', 'DeliveryFailed']);
    expect(approval.log[2].error).toContain('410');
  });

  it('signs with every secret while rotating: a receiver holding only the old or only the new one verifies', async () => {
    const a = await delivered();
    await http()
      .post('/v1/approvals/test-webhook')
      .set(runtime.auth)
      .send({ webhook: { url: `${receiver.url}/test`, authentication: { type: 'None' } } })
      .expect(200);
    const test = await eventually(() => receiver.received.find((r) => r.path === '/test'));
    for (const hook of [a.hook, test]) {
      const headers = {
        'webhook-id': String(hook.headers['webhook-id']),
        'webhook-timestamp': String(hook.headers['webhook-timestamp']),
        'webhook-signature': String(hook.headers['webhook-signature']),
      };
      expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
      expect(new Webhook(OLD_SECRET).verify(hook.body, headers)).toBeDefined();
      expect(new Webhook(NEW_SECRET).verify(hook.body, headers)).toBeDefined();
      expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(hook.body, headers)).toThrow();
    }
  });

  describe('decidedBy', () => {
    it('is kept in the Decided entry, the approval and the decision event', async () => {
      const a = await delivered();
      await http()
        .post(CALLBACK)
        .send({
          callbackId: a.callbackId,
          callbackToken: a.callbackToken,
          status: 'Approved',
          comment: 'ok',
          decidedBy: 'dana@example.com',
        })
        .expect(200);
      const approval = await approvalOf(a.approvalId);
      expect(approval.decidedBy).toBe('dana@example.com');
      expect(approval.log.at(-1)).toMatchObject({ type: 'Decided', comment: 'ok', decidedBy: 'dana@example.com' });
      const [listed] = (
        await http().get(`/v1/approvals?executionId=${approval.executionId}`).set(runtime.auth).expect(200)
      ).body;
      expect(listed).toMatchObject({ decidedBy: 'dana@example.com', log: approval.log });
      expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Approved', decidedBy: 'dana@example.com' });
    });

    it('is null when the callback names no one, and a name over 200 characters gets 400', async () => {
      const a = await delivered();
      const long = await http()
        .post(CALLBACK)
        .send({
          callbackId: a.callbackId,
          callbackToken: a.callbackToken,
          status: 'Denied',
          decidedBy: 'x'.repeat(201),
        })
        .expect(400);
      expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED' });
      await http()
        .post(CALLBACK)
        .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Denied' })
        .expect(200);
      expect((await approvalOf(a.approvalId)).decidedBy).toBeNull();
      expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Denied', decidedBy: null });
    });
  });
});

describe('Approval decision deadline across a restart', () => {
  let receiver: HttpPeer;
  let sut: ApprovalTestApp | undefined;
  afterAll(async () => {
    await sut?.close();
    await receiver?.stop();
  });

  it('times out once when the service restarts before the deadline', async () => {
    receiver = await new HttpPeer().start();
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    // A sweep interval longer than the test: the deadline job kept in Redis is what fires after the restart.
    const first = await startApprovalApp({
      DECISION_TIMEOUT_MIN_SECONDS: 1,
      DECISION_TIMEOUT_SWEEP_MS: 60_000,
      DATABASE_URL: await isolatedDatabase(),
    });
    const res = await request(first.app.getHttpServer())
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, {}, { decisionTimeoutSeconds: 4 }))
      .expect(201);
    await eventually(() => receiver.received.length);
    await first.close();
    sut = await startApprovalApp({
      DECISION_TIMEOUT_MIN_SECONDS: 1,
      DECISION_TIMEOUT_SWEEP_MS: 60_000,
      QUEUE_PREFIX: first.env.QUEUE_PREFIX,
      DATABASE_URL: first.env.DATABASE_URL,
    });
    expect((await sut.decision(res.body.approvalId, 15000)).outcome).toBe('TimedOut');
    await new Promise((r) => setTimeout(r, 1000));
    const approval = (
      await request(sut.app.getHttpServer()).get(`/v1/approvals/${res.body.approvalId}`).set(runtime.auth).expect(200)
    ).body;
    expect(approval.log.filter((e: LogEntry) => e.type === 'TimedOut')).toHaveLength(1);
    expect(await sut.decisionCount(res.body.approvalId)).toBe(1);
  }, 60000);
});
