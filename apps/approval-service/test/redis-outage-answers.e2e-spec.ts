import axios from 'axios';
import request from 'supertest';
import { after, eventually, HttpPeer, OwnRedis, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest } from './support/approval-app';
import { OnOwnRedis, onOwnRedis } from './support/on-own-redis';

/**
 * While Redis does not answer, a request waits for its job adds at most 2 s. A decision (a callback, a cancel)
 * is committed in PostgreSQL, so it is answered 200 and its event published once Redis is back; a new approval
 * is answered 503 NOT_READY, and the client's retry adds what is missing.
 */
describe('The approval API while Redis is down', () => {
  let stack: OnOwnRedis;
  let redis: OwnRedis;
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const OUTAGE_MS = 12_000;
  const ANSWER_WITHIN_MS = 5_000;

  beforeAll(async () => {
    stack = await onOwnRedis();
    ({ redis, sut, receiver } = stack);
    runtime = await testCaller({ roles: ['agent-runtime'] });
  }, 60_000);
  afterAll(() => stack?.close());

  /** Sends `call` with Redis down (for OUTAGE_MS at most), runs `whileDown` once it is answered, then starts Redis. */
  async function duringOutage<T, W = undefined>(call: () => Promise<T>, whileDown?: () => Promise<W>) {
    await redis.stop();
    const started = Date.now();
    let answer: { value: T; ms: number } | undefined;
    const answering = call().then((value) => (answer = { value, ms: Date.now() - started }));
    await eventually(() => answer !== undefined, OUTAGE_MS).catch(() => undefined);
    const seenWhileDown = answer && whileDown ? await whileDown() : undefined;
    await redis.start();
    await answering;
    // Past the limit it shows how long the answer took.
    const withinLimit = answer!.ms <= ANSWER_WITHIN_MS || `answered after ${answer!.ms} ms`;
    return { ...answer!, withinLimit, seenWhileDown };
  }

  const outboxRow = async (approvalId: string) =>
    (
      await sut.db.query('SELECT "publishedAt" FROM approval.decision_outbox WHERE "approvalId" = $1', [approvalId])
    )[0] as { publishedAt: Date | null };

  /** A new approval, delivered; right after an outage its request is retried on 503 as a client would. */
  async function awaitingApproval() {
    const body = approvalRequest(receiver.url);
    const res = await eventually(async () => {
      const answer = await http().post('/v1/approvals').set(runtime.auth).send(body);
      return answer.status !== 503 && answer;
    }, 20_000);
    expect([200, 201]).toContain(res.status);
    const approvalId = res.body.approvalId as string;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId), 10_000);
    await eventually(
      async () =>
        (await http().get(`/v1/approvals/${approvalId}`).set(runtime.auth)).body.status === 'AwaitingDecision',
    );
    return { approvalId, ...(JSON.parse(hook.body) as { callbackId: string; callbackToken: string }) };
  }

  it('answers a callback 200 at once, and publishes its decision once when Redis is back', async () => {
    const { approvalId, callbackId, callbackToken } = await awaitingApproval();
    const answer = await duringOutage(
      () =>
        axios.post(
          `${sut.url}/v1/AgentExecutionWebhookApproval/callback`,
          { callbackId, callbackToken, status: 'Approved' },
          { validateStatus: () => true, timeout: 60_000 },
        ),
      () => outboxRow(approvalId),
    );
    const event = await sut.decision(approvalId, 20_000);
    await after(1000);
    expect({
      status: answer.value.status,
      decision: answer.value.data.status,
      withinLimit: answer.withinLimit,
      markedPublishedWhileDown: answer.seenWhileDown?.publishedAt != null,
      outcome: event.outcome,
      events: await sut.decisionCount(approvalId),
      markedPublished: (await outboxRow(approvalId)).publishedAt != null,
    }).toEqual({
      status: 200,
      decision: 'Approved',
      withinLimit: true,
      markedPublishedWhileDown: false,
      outcome: 'Approved',
      events: 1,
      markedPublished: true,
    });
  }, 90_000);

  it('answers a new approval 503 NOT_READY with Retry-After; the retry delivers its webhook once', async () => {
    const body = approvalRequest(receiver.url);
    const answer = await duringOutage(() =>
      axios.post(`${sut.url}/v1/approvals`, body, {
        headers: runtime.auth,
        validateStatus: () => true,
        timeout: 60_000,
      }),
    );
    expect({
      status: answer.value.status,
      retryAfter: answer.value.headers['retry-after'],
      body: answer.value.data,
      withinLimit: answer.withinLimit,
    }).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/),
      body: {
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'NOT_READY',
        message: expect.any(String),
        details: [],
      },
      withinLimit: true,
    });

    const retry = await eventually(async () => {
      const res = await http().post('/v1/approvals').set(runtime.auth).send(body);
      return res.status !== 503 && res;
    }, 20_000);
    expect(retry.status).toBe(200);
    const approvalId = retry.body.approvalId as string;
    await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId), 10_000);
    await after(1000);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === approvalId)).toHaveLength(1);
  }, 90_000);

  it('answers a cancel 200 at once, and publishes its Cancelled decision once when Redis is back', async () => {
    const { approvalId } = await awaitingApproval();
    const answer = await duringOutage(() =>
      axios.post(`${sut.url}/v1/approvals/${approvalId}/cancel`, undefined, {
        headers: runtime.auth,
        validateStatus: () => true,
        timeout: 60_000,
      }),
    );
    const event = await sut.decision(approvalId, 20_000);
    await after(1000);
    expect({
      status: answer.value.status,
      approval: answer.value.data.status,
      withinLimit: answer.withinLimit,
      outcome: event.outcome,
      events: await sut.decisionCount(approvalId),
    }).toEqual({ status: 200, approval: 'Cancelled', withinLimit: true, outcome: 'Cancelled', events: 1 });
  }, 90_000);
});
