import type { Queue } from 'bull';
import { getQueueToken } from '@nestjs/bull';
import request from 'supertest';
import { SharedQueue } from '@app/contracts/payloads';
import { after, eventually, HttpPeer, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';
import { stallUntilFailed } from './support/stalled-jobs';

/**
 * A request job that stops every worker that takes it in: Bull fails it in its stalled check, without our handler.
 * Its data must not keep the webhook's auth values in Redis, and the run must not wait forever for its decision:
 * its request is taken in, or refused when it is not valid.
 */
describe('A request job that stops every worker that takes it in', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let queue: Queue;
  const http = () => request(sut.app.getHttpServer());
  const jobHash = (jobId: string) =>
    queue.client.hgetall(`${sut.env.QUEUE_PREFIX}:${SharedQueue.ApprovalRequests}:${jobId}`);
  const decisionsOf = async (executionId: string) =>
    (await sut.decisions.getJobs(['waiting', 'active', 'completed'])).filter((j) => j.data.executionId === executionId);

  /** Adds the request as the runtime does and stalls its job out, no worker of this process taking it. */
  async function stallOut(body: Record<string, unknown>): Promise<string> {
    const jobId = `${runtime.tenantId}:${body.executionId}:${body.stepId}`;
    // Held with its blocking reads cut short: a read already waiting would take the job when it is back.
    await queue.pause(true, true);
    try {
      await sut.requests.add({ ...body, tenantId: runtime.tenantId }, { jobId, removeOnFail: 1000 });
      expect(await stallUntilFailed(queue, jobId)).toBe(3);
    } finally {
      await queue.resume(true);
    }
    return jobId;
  }

  beforeAll(async () => {
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase(), QUEUE_STALLED_INTERVAL_MS: 500 });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    queue = sut.app.get<Queue>(getQueueToken(SharedQueue.ApprovalRequests));
    // Its worker settled in its blocking read: pausing it then cuts nothing short that Bull does not expect.
    await after(1000);
  });
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  it.each([
    ['ApiKey', { apiKey: 'stalled-secret-0001' }, 'stalled-secret-0001'],
    ['BasicAuth', { username: 'erp-user', password: 'stalled-secret-0002' }, 'stalled-secret-0002'],
  ])(
    'takes in a %s request no worker stored: no auth value kept in the job, delivered once, no decision made up',
    async (type, values, secret) => {
      receiver.handler = (_req, res) => void res.writeHead(200).end();
      const body = approvalRequest(receiver.url, { authentication: { type, ...values } });
      const jobId = await stallOut(body);

      const redacted = await eventually(async () => {
        const hash = await jobHash(jobId);
        return hash.failedReason && !hash.data.includes(secret) && hash;
      }, 10_000).catch(() => undefined);
      expect(JSON.stringify(redacted ?? (await jobHash(jobId)))).not.toContain(secret);
      expect(JSON.parse((await jobHash(jobId)).data).webhook.authentication).toMatchObject({ type });
      // Stored as a live worker would (the same step stored once, whoever gets there first), and delivered.
      const listed = await eventually(async () => {
        const { body: found } = await http()
          .get('/v1/approvals')
          .query({ executionId: body.executionId })
          .set(runtime.auth);
        return found.length === 1 && found[0].status === 'AwaitingDecision' && found;
      }, 15_000);
      expect(listed[0].stepId).toBe(body.stepId);
      expect(receiver.received.filter((r) => JSON.parse(r.body).executionId === body.executionId)).toHaveLength(1);
      await after(1500);
      expect(await decisionsOf(body.executionId)).toHaveLength(0);
    },
    60_000,
  );

  it('lets an approval stored before the stall go on, with no auth value left in the job', async () => {
    receiver.handler = (_req, res) => void res.writeHead(200).end();
    const secret = 'stalled-secret-0003';
    const body = approvalRequest(receiver.url, {
      authentication: { type: 'CustomHeader', headerName: 'X-Shared', headerValue: secret },
    });
    // Stored first (the worker that took it in died after storing it), then its job stalls out.
    const created = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
    const jobId = await stallOut(body);

    const redacted = await eventually(async () => {
      const hash = await jobHash(jobId);
      return hash.failedReason && !hash.data.includes(secret) && hash;
    }, 10_000).catch(() => undefined);
    expect(JSON.stringify(redacted ?? (await jobHash(jobId)))).not.toContain(secret);
    expect(JSON.parse((await jobHash(jobId)).data).webhook.authentication).toMatchObject({
      type: 'CustomHeader',
      headerName: 'X-Shared',
    });
    // The approval goes on: delivered, awaiting its decision, and no decision made up for it.
    const approval = await eventually(async () => {
      const { body: found } = await http().get(`/v1/approvals/${created.body.approvalId}`).set(runtime.auth);
      return found.status === 'AwaitingDecision' && found;
    });
    expect(approval.executionId).toBe(body.executionId);
    await after(1500);
    expect(await decisionsOf(body.executionId)).toHaveLength(0);
  }, 60_000);

  it('keeps nothing of an array webhook in a request job it refuses when stalled out', async () => {
    const secret = 'stalled-secret-0004';
    const body = {
      ...approvalRequest(receiver.url),
      webhook: [{ url: receiver.url, authentication: { type: 'ApiKey', apiKey: secret } }],
    };
    const jobId = await stallOut(body);
    const failed = await eventually(async () => {
      const hash = await jobHash(jobId);
      return hash.failedReason && !hash.data.includes(secret) && hash;
    }, 10_000).catch(() => undefined);
    expect(JSON.stringify(failed ?? (await jobHash(jobId)))).not.toContain(secret);
    const refused = await eventually(async () => (await decisionsOf(body.executionId))[0], 15_000);
    expect(refused.data).toMatchObject({ outcome: 'InvalidRequest' });
    expect(JSON.stringify(refused.data)).not.toContain(secret);
  }, 60_000);
});
