import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { ApprovalRequestJob, SharedQueue } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { MAX_BODY_BYTES } from '@app/http';
import { eventually, HttpPeer } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const MiB = 1024 * 1024;
const SECRET = 'api-secret-size-0001';

describe('A queued approval request larger than a REST body may be', () => {
  let service: ApprovalTestApp;
  let runtime: ApprovalRuntimeClient;
  let receiver: HttpPeer;
  let redis: Redis;
  const tenantId = `tenant-size-${randomBytes(3).toString('hex')}`;
  const jobHash = (body: { executionId: string; stepId: string }) =>
    redis.hgetall(
      `${service.env.QUEUE_PREFIX}:${SharedQueue.ApprovalRequests}:${tenantId}:${body.executionId}:${body.stepId}`,
    );
  const queued = (extra: Record<string, unknown>) => ({
    ...approvalRequest(receiver.url, { authentication: { type: 'ApiKey', apiKey: SECRET } }, extra),
    tenantId,
  });

  beforeAll(async () => {
    service = await startApprovalApp();
    redis = new Redis(String(service.env.REDIS_URL));
    runtime = new ApprovalRuntimeClient(String(service.env.REDIS_URL), { prefix: String(service.env.QUEUE_PREFIX) });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await runtime?.close();
    redis?.disconnect();
    await service?.close();
  });

  it.each([
    ['stepInput', { stepInput: { blob: 'x'.repeat(5 * MiB) } }],
    ['an id', { executionId: `exec-${'e'.repeat(5 * MiB)}` }],
  ])(
    'is refused with an InvalidRequest naming the size (%s), stored nowhere, sent nowhere, kept without its payload',
    async (_where, extra) => {
      const body = queued(extra);
      await runtime.request(body as ApprovalRequestJob);
      const failed = await eventually(async () => {
        const hash = await jobHash(body);
        return hash.finishedOn && hash;
      });
      expect(failed.failedReason).toMatch(/larger than 1 MiB/);
      expect(failed.attemptsMade).toBe('1');
      // The refused job keeps no payload and no auth value in Redis.
      expect(failed.data.length).toBeLessThan(4096);
      expect(failed.data).not.toContain(SECRET);

      // The runtime gets the contract's refusal; the ids it echoes are bounded too.
      const decision = await eventually(async () =>
        (await service.decisions.getJobs(['waiting', 'active', 'completed'])).find(
          (j) =>
            j.data.tenantId === tenantId && !!j.data.executionId && body.executionId.startsWith(j.data.executionId),
        ),
      );
      expect(decision.data).toMatchObject({ outcome: 'InvalidRequest', stepId: body.stepId });
      expect(decision.data.comment).toMatch(/larger than 1 MiB \(\d+ bytes\)/);
      expect(JSON.stringify(decision.data).length).toBeLessThan(4096);

      const rows = await service.db.query('SELECT 1 FROM approval.approvals WHERE "tenantId" = $1', [tenantId]);
      expect(rows).toHaveLength(0);
      expect(receiver.received).toHaveLength(0);
    },
  );

  it('takes in and delivers a request just within the limit', async () => {
    const body = queued({ stepInput: { blob: 'y'.repeat(MAX_BODY_BYTES - 4096) } });
    await runtime.request(body as ApprovalRequestJob);
    const hook = await eventually(() =>
      receiver.received.find((r) => r.body.includes(`"executionId":"${body.executionId}"`)),
    );
    expect(JSON.parse(hook.body).stepInput).toEqual(body.stepInput);
  });
});
