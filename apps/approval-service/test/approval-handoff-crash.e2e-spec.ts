import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import Redis from 'ioredis';
import request from 'supertest';
import { eventually, HttpPeer, killChild, LaggingProxy, startChildApp, testCaller } from '@app/testing';
import { DELIVERY_QUEUE } from '../src/delivery/delivery.jobs';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const LAG_MS = 3000;

describe('A first attempt let go on alone', () => {
  let api: ApprovalTestApp;
  let receiver: HttpPeer;
  let proxy: LaggingProxy;
  let redis: Redis;
  let worker: ChildProcess | undefined;

  afterAll(async () => {
    if (worker) await killChild(worker);
    await receiver?.stop();
    await proxy?.stop();
    redis?.disconnect();
    await api?.close();
  });

  it('is in Redis, as its delayed job, before intake lets its request go: a worker killed while that write lags still has it sent again', async () => {
    api = await startApprovalApp({ QUEUE_LOCK_DURATION_MS: 3000, DELIVERY_STRANDED_AFTER_MS: 2000 }, 'api');
    const { tenantId } = await testCaller({ roles: ['agent-runtime'] });
    const redisUrl = new URL(String(api.env.REDIS_URL));
    redis = new Redis(String(api.env.REDIS_URL));
    // The worker's Redis link is slow only for what adds a delivery attempt to the fair share.
    const target = { host: redisUrl.hostname.replace(/^\[|\]$/g, ''), port: Number(redisUrl.port || 6379) };
    proxy = await new LaggingProxy(
      target,
      (chunk) => chunk.includes(`:fair:${DELIVERY_QUEUE}:`) && chunk.includes('"approvalId"'),
      LAG_MS,
    ).start();
    let answering = false;
    receiver = await new HttpPeer(async (req, res: ServerResponse) => {
      if (!answering) return; // held open: the worker dies with it in flight
      res.writeHead(200).end();
      const { callbackId, callbackToken } = JSON.parse(req.body);
      await request(api.app.getHttpServer())
        .post('/v1/AgentExecutionWebhookApproval/callback')
        .send({ callbackId, callbackToken, status: 'Approved' });
    }).start();
    const viaProxy = new URL(redisUrl); // its password and database kept
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const proxied = { ...api.env, REDIS_URL: viaProxy.toString() };
    worker = await startChildApp('apps/approval-service/test/support/run-approval.ts', proxied, 'worker');

    const timeoutSeconds = 10;
    const job = await api.requests.add({
      ...approvalRequest(receiver.url, { timeoutSeconds, maxRetryAttempts: 0 }),
      tenantId,
    });
    const { approvalId } = (await job.finished()) as { approvalId: string };
    await killChild(worker, 'SIGKILL');
    expect(receiver.received).toHaveLength(1);
    // Intake's request was done only once the lagged write of the delayed job had gone through.
    const done = (await api.requests.getJob(job.id!))!.finishedOn!;
    expect(done - receiver.received[0].at).toBeGreaterThanOrEqual(LAG_MS - 500);
    // The attempt had not timed out (which would have recorded it) before the worker died.
    expect(Date.now() - receiver.received[0].at).toBeLessThan(timeoutSeconds * 1000);
    const entries = `${String(api.env.QUEUE_PREFIX)}:fair:${DELIVERY_QUEUE}:entries`;
    expect(await redis.hexists(entries, `${approvalId}:1`)).toBe(1);

    answering = true;
    worker = await startChildApp('apps/approval-service/test/support/run-approval.ts', api.env, 'worker');
    await eventually(async () => {
      const [row] = await api.db.query('SELECT status FROM approval.approvals WHERE id = $1', [approvalId]);
      return row?.status === 'Approved';
    }, 40000);
    expect(receiver.received).toHaveLength(2);
    await api.decision(approvalId); // published by the outbox relay shortly after the status is stored
    expect(await api.decisionCount(approvalId)).toBe(1);
  }, 90000);
});
