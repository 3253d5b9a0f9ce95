import Bull from 'bull';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { HttpPeer, ReceivedRequest, eventually, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { REMINDERS_ENDED } from '../src/approval-store/approvals.repository';
import { ApprovalTestApp, SIGNING_SECRET, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type LogEntry = { type: string; attempt: number | null; reminder: number | null; httpStatus: number | null };

// First in the file: an app started in this process leaves its configuration in process.env for the next.
describe('Reminder interval bounds (default configuration)', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
  });
  afterAll(() => sut.close());

  it('refuses an interval outside 300..604800 s over REST (400 naming the field) and on the queue (InvalidRequest)', async () => {
    const http = () => request(sut.app.getHttpServer());
    for (const remindAfterSeconds of [299, 604_801, 0, 1.5]) {
      const res = await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest('http://127.0.0.1:9/hook', { remindAfterSeconds }))
        .expect(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'webhook.remindAfterSeconds' })],
      });
    }
    const body = approvalRequest('http://127.0.0.1:9/hook', { remindAfterSeconds: 299 });
    await sut.requests.add({ ...body, tenantId: runtime.tenantId });
    const refused = await eventually(async () =>
      (await sut.decisions.getJobs(['waiting', 'completed'])).find((j) => j.data.executionId === body.executionId),
    );
    expect(refused.data.outcome).toBe('InvalidRequest');
    expect(refused.data.comment).toContain('webhook.remindAfterSeconds must not be less than 300');

    const ok = approvalRequest('http://127.0.0.1:9/hook', { remindAfterSeconds: 300 });
    const created = await http().post('/v1/approvals').set(runtime.auth).send(ok).expect(201);
    const approval = await http().get(`/v1/approvals/${created.body.approvalId}`).set(runtime.auth).expect(200);
    expect(approval.body.webhook.remindAfterSeconds).toBe(300);
    // A repeat that asks for another interval is another request.
    await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send({ ...ok, webhook: { ...ok.webhook, remindAfterSeconds: 600 } })
      .expect(409);
    await http().post('/v1/approvals').set(runtime.auth).send(ok).expect(200);
  });
});

describe('Approval reminders', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let env: Record<string, unknown>;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;
  const sent = (approvalId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === approvalId);
  const bodies = (approvalId: string) => sent(approvalId).map((r) => JSON.parse(r.body));

  beforeAll(async () => {
    // Intervals of seconds instead of the contract's 300 s at least, so the test takes seconds. A database of
    // its own: on the run's shared one, another test file's sweep would time these approvals out.
    env = {
      WEBHOOK_REMIND_MIN_SECONDS: 1,
      DECISION_TIMEOUT_MIN_SECONDS: 1,
      DATABASE_URL: await isolatedDatabase(),
    };
    sut = await startApprovalApp(env);
    env = sut.env;
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

  async function requested(
    remindAfterSeconds: number,
    extra: Record<string, unknown> = {},
    body = approvalRequest(receiver.url, { remindAfterSeconds }, extra),
  ) {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
    return { approvalId: res.body.approvalId as string };
  }

  async function restart(): Promise<void> {
    await sut.close();
    sut = await startApprovalApp(env);
  }

  function verify(hook: ReceivedRequest): unknown {
    return new Webhook(SIGNING_SECRET).verify(hook.body, {
      'webhook-id': String(hook.headers['webhook-id']),
      'webhook-timestamp': String(hook.headers['webhook-timestamp']),
      'webhook-signature': String(hook.headers['webhook-signature']),
    });
  }

  it('sends the webhook again once per interval with reminder n, logs each, and stops at the decision', async () => {
    const a = await requested(3);
    const hooks = await eventually(() => sent(a.approvalId).length >= 3 && sent(a.approvalId), 20000);
    const [first, one, two] = hooks.map((h) => JSON.parse(h.body));
    // Decided at once, half an interval before round 3 is due.
    await http()
      .post(CALLBACK)
      .send({ callbackId: first.callbackId, callbackToken: two.callbackToken, status: 'Approved' })
      .expect(200);
    const decidedWith = sent(a.approvalId).length;

    expect(first).not.toHaveProperty('reminder');
    expect(one).toEqual({ ...first, reminder: 1 });
    expect(two).toEqual({ ...first, reminder: 2 });
    for (const hook of hooks) {
      expect(hook.headers['webhook-id']).toBe(a.approvalId);
      expect(verify(hook)).toEqual(JSON.parse(hook.body));
    }
    // Round n is due n intervals after the request (requestedAt is the approval's createdAt).
    const requestedAt = Date.parse(first.requestedAt);
    for (const n of [1, 2]) {
      expect(hooks[n].at - requestedAt).toBeGreaterThanOrEqual(n * 3000 - 20);
      expect(hooks[n].at - requestedAt).toBeLessThan((n + 1) * 3000);
    }
    const attempts = (await approvalOf(a.approvalId)).log.filter((e: LogEntry) => e.type === 'DeliveryAttempt');
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, reminder: null, httpStatus: 200 }),
      expect.objectContaining({ attempt: 2, reminder: 1, httpStatus: 200 }),
      expect.objectContaining({ attempt: 3, reminder: 2, httpStatus: 200 }),
    ]);

    await after(4500);
    expect(sent(a.approvalId)).toHaveLength(decidedWith);
    expect((await sut.decision(a.approvalId)).outcome).toBe('Approved');
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  }, 40000);

  it('stops at a cancel and at the decision deadline', async () => {
    const cancelled = await requested(1);
    await eventually(() => bodies(cancelled.approvalId).some((b) => b.reminder === 1), 10000);
    await http().post(`/v1/approvals/${cancelled.approvalId}/cancel`).set(runtime.auth).expect(200);

    // Deadline 5 s: rounds at 2 and 4 s (a loaded machine may send the second too late, after the deadline:
    // then never), none after; then TimedOut.
    const due = await requested(2, { decisionTimeoutSeconds: 5 });
    expect((await sut.decision(due.approvalId, 10000)).outcome).toBe('TimedOut');

    const cancelledWith = sent(cancelled.approvalId).length;
    const dueWith = bodies(due.approvalId).map((b) => b.reminder ?? 0);
    await after(3000);
    expect(sent(cancelled.approvalId)).toHaveLength(cancelledWith);
    expect(bodies(due.approvalId).map((b) => b.reminder ?? 0)).toEqual(dueWith);
    expect([
      [0, 1],
      [0, 1, 2],
    ]).toContainEqual(dueWith);
    const log = (await approvalOf(due.approvalId)).log;
    const timedOutAt = Date.parse(log.find((e: LogEntry & { at: string }) => e.type === 'TimedOut').at);
    for (const e of log.filter((entry: LogEntry) => entry.type === 'DeliveryAttempt'))
      expect(Date.parse(e.at)).toBeLessThan(timedOutAt);
  }, 30000);

  it('sends none while the first delivery is still being tried: the first reminder comes in the next interval after it', async () => {
    // Attempts at 0 s and 2 s fail, the one at 6 s succeeds: round 1 (at 4 s) finds the approval Pending.
    const body = approvalRequest(receiver.url, { remindAfterSeconds: 4 });
    let failures = 2;
    receiver.handler = (req, res) => {
      const mine = JSON.parse(req.body).executionId === body.executionId;
      res.writeHead(mine && failures-- > 0 ? 503 : 200).end();
    };
    const a = await requested(4, {}, body);
    const reminded = await eventually(() => sent(a.approvalId).find((h) => JSON.parse(h.body).reminder === 1), 20000);
    expect(sent(a.approvalId).map((h) => JSON.parse(h.body).reminder ?? 0)).toEqual([0, 0, 0, 1]);
    expect(reminded.at - Date.parse(JSON.parse(reminded.body).requestedAt)).toBeGreaterThanOrEqual(8000 - 20);
    await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth).expect(200);
  }, 30000);

  it('sends a round once, however often its job runs', async () => {
    const a = await requested(2);
    await eventually(() => bodies(a.approvalId).some((b) => b.reminder === 1), 10000);
    await eventually(async () => (await approvalOf(a.approvalId)).log.some((e: LogEntry) => e.reminder === 1));
    const rounds = new Bull('approval-reminders', String(env.REDIS_URL), { prefix: String(env.QUEUE_PREFIX) });
    try {
      // A retried round 1 (its job ran again after a crash), under another job id.
      await rounds.add({ approvalId: a.approvalId, round: 1 }, { jobId: `${a.approvalId}:again` });
      await after(1000);
    } finally {
      await rounds.close();
    }
    expect(bodies(a.approvalId).filter((b) => b.reminder === 1)).toHaveLength(1);
    await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth).expect(200);
  }, 30000);

  it('gives redeliveries asked for at once numbers of their own, each sent', async () => {
    const a = await requested(3600);
    await eventually(async () => (await approvalOf(a.approvalId)).status === 'AwaitingDecision');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => http().post(`/v1/approvals/${a.approvalId}/redeliver`).set(runtime.auth)),
    );
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(answers.map((r) => r.body.attempt).sort()).toEqual([2, 3, 4, 5, 6]);
    await eventually(() => sent(a.approvalId).length === 6, 10000);
    await eventually(
      async () =>
        (await approvalOf(a.approvalId)).log.filter((e: LogEntry) => e.type === 'DeliveryAttempt').length === 6,
    );
    await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth).expect(200);
  });

  it('sends no further reminder once the receiver answered 410 Gone to one, across a restart; the approval still awaits its decision', async () => {
    const body = approvalRequest(receiver.url, { remindAfterSeconds: 1 });
    receiver.handler = (req, res) => {
      const hook = JSON.parse(req.body);
      res.writeHead(hook.executionId === body.executionId && hook.reminder === 1 ? 410 : 200).end();
    };
    const a = await requested(1, {}, body);
    const logsGone = async () =>
      (await approvalOf(a.approvalId)).log.some((e: LogEntry) => e.reminder === 1 && e.httpStatus === 410);
    await eventually(logsGone, 10000);
    // Rounds still waiting then go on in the restarted workers.
    await restart();
    await after(3500);
    expect(bodies(a.approvalId).map((b) => b.reminder ?? 0)).toEqual([0, 1]);

    const approval = await approvalOf(a.approvalId);
    expect(approval.status).toBe('AwaitingDecision');
    expect(approval.log.filter((e: LogEntry) => e.type === 'DeliveryAttempt')).toEqual([
      expect.objectContaining({ attempt: 1, reminder: null, httpStatus: 200 }),
      expect.objectContaining({ attempt: 2, reminder: 1, httpStatus: 410, error: `HTTP 410: ${REMINDERS_ENDED}` }),
    ]);
    // Its callback still decides it.
    const [first] = bodies(a.approvalId);
    await http()
      .post(CALLBACK)
      .send({ callbackId: first.callbackId, callbackToken: first.callbackToken, status: 'Denied' })
      .expect(200);
    expect((await sut.decision(a.approvalId)).outcome).toBe('Denied');
  }, 30000);

  it('keeps its rounds across a restart of the service', async () => {
    const a = await requested(3);
    await eventually(() => sent(a.approvalId).length === 1);
    await eventually(async () => (await approvalOf(a.approvalId)).status === 'AwaitingDecision');
    await restart();
    const reminded = await eventually(() => sent(a.approvalId).find((h) => JSON.parse(h.body).reminder === 1), 15000);
    expect(reminded.at - Date.parse(JSON.parse(reminded.body).requestedAt)).toBeGreaterThanOrEqual(3000 - 20);
    await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth).expect(200);
  }, 30000);
});
