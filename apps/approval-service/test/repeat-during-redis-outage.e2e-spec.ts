import axios from 'axios';
import request from 'supertest';
import { eventually, HttpPeer, OwnRedis, testCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest } from './support/approval-app';
import { OnOwnRedis, onOwnRedis } from './support/on-own-redis';

/**
 * CONTRACT.md: "(executionId, stepId) is idempotent: a repeat returns the existing approval (200)". Before
 * commits 87053af/0b50346 a repeat only read PostgreSQL, so it answered 200 whatever Redis did. Now every REST
 * repeat first writes to Redis (a decided approval's event again, an open one's follow-up jobs) under a 2 s
 * deadline, and answers 503 NOT_READY while Redis is down, even for an approval that was decided long ago.
 */
describe('A REST repeat of an existing approval while Redis is down', () => {
  let stack: OnOwnRedis;
  let redis: OwnRedis;
  let sut: ApprovalTestApp;
  let receiver: HttpPeer;

  beforeAll(async () => {
    stack = await onOwnRedis();
    ({ redis, sut, receiver } = stack);
  }, 60_000);
  afterAll(() => stack?.close());

  it('still answers 200 with the existing (decided) approval: the answer needs nothing from Redis', async () => {
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    const body = approvalRequest(receiver.url);
    const created = await request(sut.app.getHttpServer()).post('/v1/approvals').set(runtime.auth).send(body);
    expect(created.status).toBe(201);
    const approvalId = created.body.approvalId as string;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId), 10_000);
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    await eventually(async () => {
      const res = await axios.post(
        `${sut.url}/v1/AgentExecutionWebhookApproval/callback`,
        { callbackId, callbackToken, status: 'Denied' },
        { validateStatus: () => true },
      );
      return res.status === 200;
    });
    await sut.decision(approvalId);

    await redis.stop();
    let repeat;
    try {
      repeat = await axios.post(`${sut.url}/v1/approvals`, body, {
        headers: runtime.auth,
        validateStatus: () => true,
        timeout: 30_000,
      });
    } finally {
      await redis.start();
    }

    expect({ status: repeat.status, body: repeat.data }).toEqual({
      status: 200,
      body: { approvalId, callbackId, status: 'Denied' },
    });
  }, 90_000);
});
