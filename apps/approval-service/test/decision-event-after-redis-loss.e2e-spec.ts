import axios from 'axios';
import Redis from 'ioredis';
import { eventually, HttpPeer, isolatedDatabase, testCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/**
 * A decision event is marked published once Bull took it. Should Redis restart without its data before the
 * runtime took the event, the runtime's recovery is to send its request again (docs/operating.md): a repeat of
 * a decided approval publishes its decision event again, the same event, under the same job id.
 */
describe('A decision event Redis lost before the runtime took it', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let sut: ApprovalTestApp;
  let receiver: HttpPeer;

  beforeAll(async () => {
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase() });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
    await redis.quit();
  });

  it('reaches the runtime again, unchanged and once, when the runtime sends its request again', async () => {
    const { tenantId } = await testCaller({ roles: ['agent-runtime'] });
    const body = { ...approvalRequest(receiver.url), tenantId };
    const jobId = `${tenantId}:${body.executionId}:${body.stepId}`;
    const job = await sut.requests.add(body, { jobId });
    const { approvalId } = (await job.finished()) as { approvalId: string };
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId), 10_000);
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    await eventually(async () => {
      const res = await axios.post(
        `${sut.url}/v1/AgentExecutionWebhookApproval/callback`,
        {
          callbackId,
          callbackToken,
          status: 'Approved',
          comment: 'Within budget',
          decidedBy: 'dana@example.com',
          output: { approvedAmount: 900, note: 'z before a' },
        },
        { validateStatus: () => true },
      );
      return res.status === 200;
    });
    const first = await sut.decision(approvalId);
    await eventually(async () => {
      const [row] = await sut.db.query('SELECT "publishedAt" FROM approval.decision_outbox WHERE "approvalId" = $1', [
        approvalId,
      ]);
      return row?.publishedAt != null;
    });

    // Redis restarts without its data before the runtime consumed the decision.
    const keys = await redis.keys(`${String(sut.env.QUEUE_PREFIX)}:*`);
    await redis.del(...keys);
    expect(await sut.decisionCount(approvalId)).toBe(0);

    // The runtime, still waiting, sends its request again, and then once more.
    const again = await sut.requests.add(body, { jobId });
    expect(await again.finished()).toEqual({ approvalId, created: false });
    const event = await eventually(async () => (await sut.decisions.getJob(approvalId))?.data, 10_000);
    expect(event).toEqual(first);
    await (await sut.requests.getJob(jobId))?.remove();
    const onceMore = await sut.requests.add(body, { jobId });
    expect(await onceMore.finished()).toEqual({ approvalId, created: false });
    expect(await sut.decisionCount(approvalId)).toBe(1);
  }, 60_000);
});
