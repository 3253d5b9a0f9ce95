import type { ServerResponse } from 'node:http';
import Redis from 'ioredis';
import request from 'supertest';
import { eventually, HttpPeer, OwnRedis, ReceivedRequest, testCaller, TestCaller } from '@app/testing';
import { DECISION_TIMEOUT_QUEUE } from '../src/decision-timeouts/decision-timeout.jobs';
import { ApprovalTestApp, approvalRequest } from './support/approval-app';
import { OnOwnRedis, onOwnRedis } from './support/on-own-redis';

const SWEEP_MS = 500;
const STRANDED_AFTER_MS = 1000;
/** The webhook timeout of the approvals whose delivery Redis interrupts. */
const TIMEOUT_SECONDS = 2;
const DEADLINE_SECONDS = 6;
/**
 * What a user would accept for an interrupted delivery: its lost job is found a timeout, DELIVERY_STRANDED_AFTER_MS
 * and a sweep after its last attempt, then its 2 s retry follows; 3 s for the worker and the restart.
 */
const DELIVERED_WITHIN_MS = TIMEOUT_SECONDS * 1000 + STRANDED_AFTER_MS + SWEEP_MS + 2000 + 3000;
/** A lost deadline is caught by the next sweep; 2 s for the worker and the decision's commit. */
const TIMED_OUT_WITHIN_MS = SWEEP_MS + 2000;

type Log = Array<{ at: string; type: string; attempt: number | null; httpStatus: number | null }>;
type Approval = { status: string; decidedAt: string | null; decisionDueAt: string | null; log: Log };
type Webhook = { callbackId: string; callbackToken: string };

/**
 * A Redis without persistence restarts while approvals are at every stage: a retry waiting, an attempt in
 * flight, a decision deadline ahead, a decision just made. The contract promises such a restart pauses work and
 * never loses or fails it; the workers' sweeps send on what Redis lost (docs/operating.md).
 */
describe('Approvals through a Redis restart without its data', () => {
  let stack: OnOwnRedis;
  let redis: OwnRedis;
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const get = async (id: string): Promise<Approval> =>
    (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;
  const webhooksOf = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id);
  const callback = (id: string, status: string) => {
    const { callbackId, callbackToken } = JSON.parse(webhooksOf(id)[0].body) as Webhook;
    return http().post('/v1/AgentExecutionWebhookApproval/callback').send({ callbackId, callbackToken, status });
  };

  /** `/first-503` answers its first webhook 503, `/hangs-once` never answers its first; the rest get 200. */
  function answer(req: ReceivedRequest, res: ServerResponse): void {
    const first = webhooksOf(String(req.headers['webhook-id'])).length === 1;
    if (first && req.path === '/first-503') res.writeHead(503).end('busy');
    else if (!(first && req.path === '/hangs-once')) res.writeHead(200).end('ok');
  }

  beforeAll(async () => {
    stack = await onOwnRedis(
      {
        DELIVERY_SWEEP_MS: SWEEP_MS,
        DELIVERY_STRANDED_AFTER_MS: STRANDED_AFTER_MS,
        REMINDER_SWEEP_MS: SWEEP_MS,
        DECISION_TIMEOUT_SWEEP_MS: SWEEP_MS,
        DECISION_TIMEOUT_MIN_SECONDS: 1,
      },
      { keepsData: false, answer },
    );
    ({ redis, sut, receiver } = stack);
    runtime = await testCaller({ roles: ['agent-runtime'] });
  }, 60_000);
  afterAll(() => stack?.close());

  async function requested(path: string, extra: Record<string, unknown> = {}): Promise<string> {
    const body = approvalRequest(`${receiver.url}${path}`, { timeoutSeconds: TIMEOUT_SECONDS }, extra);
    return (await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201)).body.approvalId;
  }

  async function statusBecomes(id: string, status: string, withinMs: number): Promise<Approval> {
    return eventually(async () => {
      const approval = await get(id);
      return approval.status === status && approval;
    }, withinMs);
  }

  /** Whether Redis holds the approval's decision-deadline job (it did before the restart). */
  async function deadlineJobHeld(id: string): Promise<boolean> {
    const client = new Redis(redis.url);
    try {
      return (await client.exists(`${String(sut.env.QUEUE_PREFIX)}:${DECISION_TIMEOUT_QUEUE}:${id}`)) === 1;
    } finally {
      client.disconnect();
    }
  }

  const stages = {} as Record<'retryWaiting' | 'inFlight' | 'deadlineAhead' | 'decided', string>;
  let lostAt = 0;

  it('has approvals at every stage when Redis restarts without its data', async () => {
    stages.deadlineAhead = await requested('/ok', { decisionTimeoutSeconds: DEADLINE_SECONDS });
    stages.decided = await requested('/ok');
    await statusBecomes(stages.deadlineAhead, 'AwaitingDecision', 10_000);
    await statusBecomes(stages.decided, 'AwaitingDecision', 10_000);
    await callback(stages.decided, 'Approved').expect(200);
    stages.inFlight = await requested('/hangs-once');
    stages.retryWaiting = await requested('/first-503');
    await eventually(() => webhooksOf(stages.inFlight).length === 1, 5000);
    await eventually(async () => (await get(stages.retryWaiting)).log.some((e) => e.httpStatus === 503), 5000);
    expect(await deadlineJobHeld(stages.deadlineAhead)).toBe(true);

    await redis.stop();
    await redis.start();
    lostAt = Date.now();
    expect(await deadlineJobHeld(stages.deadlineAhead)).toBe(false);
    expect((await get(stages.retryWaiting)).status).toBe('Pending');
    expect((await get(stages.inFlight)).status).toBe('Pending');
    expect((await get(stages.deadlineAhead)).status).toBe('AwaitingDecision');
  }, 30_000);

  it('delivers the approval whose retry was waiting, with a later attempt', async () => {
    const approval = await statusBecomes(stages.retryWaiting, 'AwaitingDecision', DELIVERED_WITHIN_MS);
    const delivered = approval.log.find((e) => e.type === 'DeliveryAttempt' && e.httpStatus === 200);
    expect(delivered?.attempt).toBeGreaterThanOrEqual(2);
    expect(Date.parse(delivered!.at) - lostAt).toBeLessThan(DELIVERED_WITHIN_MS);
    expect(webhooksOf(stages.retryWaiting).length).toBeGreaterThanOrEqual(2);
  }, 20_000);

  it('retries the approval whose attempt was in flight, and delivers it', async () => {
    const approval = await statusBecomes(stages.inFlight, 'AwaitingDecision', DELIVERED_WITHIN_MS);
    const delivered = approval.log.find((e) => e.type === 'DeliveryAttempt' && e.httpStatus === 200);
    expect(Date.parse(delivered!.at) - lostAt).toBeLessThan(DELIVERED_WITHIN_MS);
    expect(approval.log.filter((e) => e.type === 'DeliveryAttempt').map((e) => e.attempt)).toContain(2);
    expect(webhooksOf(stages.inFlight).length).toBeGreaterThanOrEqual(2);
  }, 20_000);

  it('times out the approval whose decision deadline Redis lost, once, and refuses a later callback', async () => {
    const dueAt = Date.parse(String((await get(stages.deadlineAhead)).decisionDueAt));
    const approval = await statusBecomes(stages.deadlineAhead, 'TimedOut', Math.max(0, dueAt - Date.now()) + 5000);
    const timedOut = approval.log.filter((e) => e.type === 'TimedOut');
    expect(timedOut).toHaveLength(1);
    expect(Date.parse(timedOut[0].at) - dueAt).toBeLessThan(TIMED_OUT_WITHIN_MS);
    expect((await sut.decision(stages.deadlineAhead, 5000)).outcome).toBe('TimedOut');
    expect(await sut.decisionCount(stages.deadlineAhead)).toBe(1);
    const late = await callback(stages.deadlineAhead, 'Approved').expect(409);
    expect(late.body.code).toBe('APPROVAL_NOT_PENDING');
  }, 20_000);

  it('keeps the decision made just before, and answers a repeated callback as the first', async () => {
    const approval = await get(stages.decided);
    expect(approval.status).toBe('Approved');
    const again = await callback(stages.decided, 'Approved').expect(200);
    expect(again.body).toMatchObject({ approvalId: stages.decided, status: 'Approved', decidedAt: approval.decidedAt });
    const otherwise = await callback(stages.decided, 'Denied').expect(409);
    expect(otherwise.body.code).toBe('APPROVAL_NOT_PENDING');
  });
});
