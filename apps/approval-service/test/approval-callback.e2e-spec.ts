import request from 'supertest';
import { HttpPeer, eventually, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';

describe('Approval callback', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;

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
      res.writeHead(202).end();
    };
  });

  /** Requests an approval and returns what the receiver got once it is AwaitingDecision. */
  async function delivered(webhook: Record<string, unknown> = {}) {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, webhook))
      .expect(201);
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === res.body.approvalId));
    await eventually(async () => (await approvalOf(res.body.approvalId)).status === 'AwaitingDecision');
    const { callbackId, callbackToken, executionId } = JSON.parse(hook.body);
    return { approvalId: res.body.approvalId as string, callbackId, callbackToken, executionId };
  }

  it.each(['Approved', 'Denied'])('records %s with its comment and tells the runtime', async (status) => {
    const a = await delivered();
    const res = await http()
      .post(CALLBACK)
      .send({
        callbackId: a.callbackId,
        callbackToken: a.callbackToken,
        status,
        comment: `${status} by Dana: within budget`,
      })
      .expect(200);
    expect(res.body).toEqual({
      callbackId: a.callbackId,
      approvalId: a.approvalId,
      executionId: a.executionId,
      status,
      decidedAt: expect.any(String),
    });
    const approval = await approvalOf(a.approvalId);
    expect(approval).toMatchObject({
      status,
      comment: `${status} by Dana: within budget`,
      decidedAt: res.body.decidedAt,
    });
    expect(approval.log.at(-1)).toMatchObject({ type: 'Decided', comment: `${status} by Dana: within budget` });
    expect(await sut.decision(a.approvalId)).toEqual({
      approvalId: a.approvalId,
      tenantId: runtime.tenantId,
      executionId: a.executionId,
      stepId: 'approve-po',
      outcome: status,
      comment: `${status} by Dana: within budget`,
      decidedBy: null,
      output: null,
      decidedAt: res.body.decidedAt,
    });
  });

  it.each(['approved', 'APPROVED', 'Deny', ''])(
    'refuses status %p with 400 and leaves the approval as it was',
    async (status) => {
      const a = await delivered();
      const res = await http()
        .post(CALLBACK)
        .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status })
        .expect(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'status' })],
      });
      expect((await approvalOf(a.approvalId)).status).toBe('AwaitingDecision');
    },
  );

  it('refuses a missing field with 400', async () => {
    const a = await delivered();
    await http().post(CALLBACK).send({ callbackId: a.callbackId, status: 'Approved' }).expect(400);
  });

  it('refuses a 1 MB body of 140,000 unknown keys with 400 at once, without holding up other requests', async () => {
    // The app runs in this process: the longest gap between ticks of a 20 ms timer is how long its event loop was held.
    let last = Date.now();
    let longestGapMs = 0;
    const ticks = setInterval(() => {
      longestGapMs = Math.max(longestGapMs, Date.now() - last);
      last = Date.now();
    }, 20);
    try {
      const res = await http().post(CALLBACK).set('Content-Type', 'application/json').send(unknownKeys(1_000_000));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'body' }] });
    } finally {
      clearInterval(ticks);
    }
    // About 0.3 s here (parsing 1 MB of JSON) and 12-22 s before the key cap; the margin is for a loaded machine.
    expect(longestGapMs).toBeLessThan(4000);
  });

  it('answers 404 CALLBACK_NOT_FOUND to an unknown callbackId', async () => {
    for (const callbackId of ['3b241101-e2bb-4255-8caf-4136c566a962', 'not-a-uuid']) {
      const res = await http().post(CALLBACK).send({ callbackId, callbackToken: 'x', status: 'Approved' }).expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, code: 'CALLBACK_NOT_FOUND' });
    }
  });

  it('answers 401 CALLBACK_TOKEN_INVALID to a wrong token, logs it and changes nothing', async () => {
    const a = await delivered();
    const wrong = `${a.callbackToken.slice(0, -1)}${a.callbackToken.endsWith('A') ? 'B' : 'A'}`;
    const res = await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId, callbackToken: wrong, status: 'Approved' })
      .expect(401);
    expect(res.body).toMatchObject({ code: 'CALLBACK_TOKEN_INVALID' });
    const approval = await approvalOf(a.approvalId);
    expect(approval.status).toBe('AwaitingDecision');
    expect(approval.log.at(-1)).toMatchObject({ type: 'CallbackRejected' });
  });

  it('answers the same 200 to the same decision repeated, and 409 to a different one', async () => {
    const a = await delivered();
    const body = { callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Denied', comment: 'over budget' };
    const first = await http().post(CALLBACK).send(body).expect(200);
    const again = await http().post(CALLBACK).send(body).expect(200);
    expect(again.body).toEqual(first.body);
    const other = await http()
      .post(CALLBACK)
      .send({ ...body, status: 'Approved' })
      .expect(409);
    expect(other.body).toMatchObject({ code: 'APPROVAL_NOT_PENDING' });
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  });

  it('takes a callbackId written in capitals, as the UUID it is', async () => {
    const a = await delivered();
    const res = await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId.toUpperCase(), callbackToken: a.callbackToken, status: 'Approved' });
    expect({ status: res.status, outcome: res.body.status }).toEqual({ status: 200, outcome: 'Approved' });
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  });

  it('checks a callback that reaches a process other than the one that took the request', async () => {
    const api = await startApprovalApp(sut.env, 'api');
    try {
      const a = await delivered();
      const call = (callbackToken: string) =>
        request(api.app.getHttpServer())
          .post(CALLBACK)
          .send({ callbackId: a.callbackId, callbackToken, status: 'Approved' });
      expect((await call(`${a.callbackToken}x`).expect(401)).body).toMatchObject({ code: 'CALLBACK_TOKEN_INVALID' });
      expect((await call(a.callbackToken).expect(200)).body).toMatchObject({
        approvalId: a.approvalId,
        status: 'Approved',
      });
      expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Approved' });
    } finally {
      await api.close();
    }
  });

  it('lets exactly one of 20 concurrent conflicting callbacks win, with one decision event', async () => {
    const a = await delivered();
    const statuses = Array.from({ length: 20 }, (_, i) => (i % 2 ? 'Approved' : 'Denied'));
    const results = await Promise.all(
      statuses.map((status) =>
        http().post(CALLBACK).send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status }),
      ),
    );
    const winner = (await approvalOf(a.approvalId)).status;
    expect(results.map((r) => r.status)).toEqual(statuses.map((s) => (s === winner ? 200 : 409)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 409)).toHaveLength(10);
    expect((await approvalOf(a.approvalId)).log.filter((e: { type: string }) => e.type === 'Decided')).toHaveLength(1);
    await sut.decision(a.approvalId);
    await new Promise((r) => setTimeout(r, 300));
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  });

  it('accepts a decision that arrives before the delivery is answered, and stops retrying', async () => {
    receiver.handler = async (req, res) => {
      const { callbackId, callbackToken } = JSON.parse(req.body);
      await request(sut.app.getHttpServer())
        .post(CALLBACK)
        .send({ callbackId, callbackToken, status: 'Approved', comment: 'quick' })
        .expect(200);
      res.writeHead(500).end(); // then the receiver even fails the delivery
    };
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, { maxRetryAttempts: 2 }))
      .expect(201);
    expect(await sut.decision(res.body.approvalId)).toMatchObject({ outcome: 'Approved', comment: 'quick' });
    await new Promise((r) => setTimeout(r, 2600));
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === res.body.approvalId)).toHaveLength(1);
    expect((await approvalOf(res.body.approvalId)).status).toBe('Approved');
  });

  it('waits for a decision as long as it takes: no time limit after delivery', async () => {
    const a = await delivered({ timeoutSeconds: 1, maxRetryAttempts: 0 });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await approvalOf(a.approvalId)).status).toBe('AwaitingDecision');
    await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Approved' })
      .expect(200);
  });

  it('cancels an open approval once, with a Cancelled decision; a callback after that gets 409', async () => {
    const a = await delivered();
    const res = await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth).expect(200);
    expect(res.body).toMatchObject({ status: 'Cancelled' });
    await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth).expect(409);
    expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Cancelled' });
    await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Approved' })
      .expect(409);
  });

  it('lists approvals by execution and status, within the tenant only', async () => {
    const a = await delivered();
    const byExecution = await http().get(`/v1/approvals?executionId=${a.executionId}`).set(runtime.auth).expect(200);
    expect(byExecution.body.map((x: { id: string }) => x.id)).toEqual([a.approvalId]);
    const awaiting = await http().get('/v1/approvals?status=AwaitingDecision').set(runtime.auth).expect(200);
    expect(awaiting.body.map((x: { id: string }) => x.id)).toContain(a.approvalId);
    await http().get('/v1/approvals?status=approved').set(runtime.auth).expect(400);
    const stranger = await testCaller({ roles: ['agent-runtime'] });
    await http().get(`/v1/approvals/${a.approvalId}`).set(stranger.auth).expect(404);
    await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(stranger.auth).expect(404);
    expect(
      (await http().get(`/v1/approvals?executionId=${a.executionId}`).set(stranger.auth).expect(200)).body,
    ).toEqual([]);
    await http().get(`/v1/approvals/${a.approvalId}`).expect(401);
  });
});

describe('Approval callback rate limit', () => {
  it('answers 429 with the error body past the limit per client address', async () => {
    const sut = await startApprovalApp({ CALLBACK_RATE_LIMIT_PER_MINUTE: 5 });
    try {
      const send = () =>
        request(sut.app.getHttpServer())
          .post(CALLBACK)
          .send({ callbackId: '0b8a3f3e-8c57-4f6e-9d53-6b1f6f3c2a11', callbackToken: 'y', status: 'Approved' });
      for (let i = 0; i < 5; i++) expect((await send()).status).toBe(404);
      const limited = await send();
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    } finally {
      await sut.close();
    }
  });
});

/** A JSON object of `bytes` bytes made of the smallest unknown keys: {"0":0,"1":0,…}. */
function unknownKeys(bytes: number): string {
  const keys: string[] = [];
  for (let i = 0, size = 2; size < bytes; i++) {
    keys.push(`"${i.toString(36)}":0`);
    size += keys[i].length + 1;
  }
  return `{${keys.join(',')}}`;
}
