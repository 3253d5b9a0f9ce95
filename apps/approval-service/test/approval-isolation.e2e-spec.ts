import { getQueueToken } from '@nestjs/bull';
import axios from 'axios';
import type { Queue } from 'bull';
import { ApprovalDecisionEvent, ApprovalRequestJob } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { FairShare, fairShareToken } from '@app/queue';
import { eventually, HttpPeer } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';
import { TricklingReceiver } from './support/slow-receivers';
import { DELIVERY_QUEUE } from '../src/delivery/delivery.jobs';

describe('Delivery isolation', () => {
  let service: ApprovalTestApp;
  let runtime: ApprovalRuntimeClient;
  let hanging: HttpPeer;
  let trickling: TricklingReceiver;
  let quickTrickle: TricklingReceiver;
  let slowBody: TricklingReceiver;
  let prompt: HttpPeer;
  const decidedAt = new Map<string, { event: ApprovalDecisionEvent; at: number }>();
  const callbackAt = new Map<string, number>();
  const enqueue = (tenantId: string, url: string, webhook: Record<string, unknown>) => {
    const body = { ...approvalRequest(url, webhook), tenantId };
    return runtime.request(body as ApprovalRequestJob).then(() => body);
  };

  beforeAll(async () => {
    service = await startApprovalApp();
    runtime = new ApprovalRuntimeClient(String(service.env.REDIS_URL), {
      prefix: String(service.env.QUEUE_PREFIX),
      onDecision: (event) => void decidedAt.set(event.executionId, { event, at: Date.now() }),
    });
    hanging = await new HttpPeer(() => undefined).start(); // accepts, never answers
    trickling = await new TricklingReceiver(5000).start();
    quickTrickle = await new TricklingReceiver(500).start();
    slowBody = await new TricklingReceiver(500, true).start();
    prompt = await new HttpPeer(async (req, res) => {
      res.writeHead(200).end();
      const { callbackId, callbackToken, executionId } = JSON.parse(req.body);
      callbackAt.set(executionId, Date.now());
      await axios.post(`${service.url}/v1/AgentExecutionWebhookApproval/callback`, {
        callbackId,
        callbackToken,
        status: 'Approved',
      });
    }).start();
  });

  afterAll(async () => {
    // The slow receivers go first, so the attempts they hold end and the service can close.
    await hanging?.stop();
    await trickling?.stop();
    await quickTrickle?.stop();
    await slowBody?.stop();
    await prompt?.stop();
    await runtime?.close();
    await service?.close();
  });

  it('ends an attempt to a receiver that trickles its answer at timeoutSeconds by the wall clock', async () => {
    const started = Date.now();
    const body = await enqueue('tenant-c', quickTrickle.url, { timeoutSeconds: 2, maxRetryAttempts: 0 });
    const { event, at } = await eventually(() => decidedAt.get(body.executionId), 15_000);
    expect(event.outcome).toBe('DeliveryFailed');
    expect(at - started).toBeLessThan(10_000); // enqueue to decision, on a busy machine; the attempt itself is checked below
    const [attempt] = await service.db.query(
      `SELECT l."httpStatus", l."durationMs", l.error FROM approval.approval_log l JOIN approval.approvals a ON a.id = l."approvalId"
       WHERE a."executionId" = $1 AND l.type = 'DeliveryAttempt'`,
      [body.executionId],
    );
    expect(attempt).toMatchObject({ httpStatus: null, error: 'No answer within 2 s' });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(1900);
    expect(attempt.durationMs).toBeLessThan(3500);
  }, 30_000);

  it('confirms delivery on a 2xx status line in time, and drops a body that does not end by the deadline', async () => {
    const body = await enqueue('tenant-c', slowBody.url, { timeoutSeconds: 2, maxRetryAttempts: 0 });
    const [attempt] = await eventually(async () => {
      const rows = await service.db.query(
        `SELECT l."httpStatus", l."durationMs", l.error, a.status FROM approval.approval_log l JOIN approval.approvals a ON a.id = l."approvalId"
         WHERE a."executionId" = $1 AND l.type = 'DeliveryAttempt'`,
        [body.executionId],
      );
      return rows.length && rows;
    }, 15_000);
    expect(attempt).toMatchObject({ httpStatus: 200, error: null, status: 'AwaitingDecision' });
    expect(attempt.durationMs).toBeLessThan(3500);
  }, 30_000);

  it("takes in and delivers another tenant's request at once while one tenant's 40 receivers hang or trickle", async () => {
    for (let i = 0; i < 20; i++) {
      await enqueue('tenant-a', hanging.url, { timeoutSeconds: 3600, maxRetryAttempts: 0 });
      await enqueue('tenant-a', trickling.url, { timeoutSeconds: 3600, maxRetryAttempts: 0 });
    }
    await eventually(() => hanging.received.length + trickling.connections.size >= 8, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const requested = Date.now();
    const body = await enqueue('tenant-b', prompt.url, { timeoutSeconds: 30 });
    await eventually(() => prompt.received.find((r) => JSON.parse(r.body).executionId === body.executionId), 10_000);
    expect(Date.now() - requested).toBeLessThan(2000);
    const { event, at } = await eventually(() => decidedAt.get(body.executionId), 10_000);
    expect(event.outcome).toBe('Approved');
    expect(at - callbackAt.get(body.executionId)!).toBeLessThan(1000);
  }, 60_000);
  it("still delivers a fourth tenant's request at once when three tenants' receivers all hang", async () => {
    for (const tenant of ['tenant-x', 'tenant-y', 'tenant-z'])
      for (let i = 0; i < 20; i++) await enqueue(tenant, hanging.url, { timeoutSeconds: 3600, maxRetryAttempts: 0 });
    await eventually(() => hanging.received.length >= 30, 20_000); // the slots are as full as they get
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const requested = Date.now();
    const body = await enqueue('tenant-w', prompt.url, { timeoutSeconds: 30 });
    await eventually(() => prompt.received.find((r) => JSON.parse(r.body).executionId === body.executionId), 10_000);
    expect(Date.now() - requested).toBeLessThan(2000);
  }, 60_000);

  it('sends a slow first attempt once and leaves no job for it in Redis once it has ended', async () => {
    const late = await new HttpPeer(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 700)); // past intake's wait
      res.writeHead(200).end();
    }).start();
    try {
      const body = await enqueue('tenant-late', late.url, { timeoutSeconds: 5 });
      const approval = await eventually(async () => {
        const [row] = await service.db.query('SELECT id, status FROM approval.approvals WHERE "executionId" = $1', [
          body.executionId,
        ]);
        return row?.status === 'AwaitingDecision' && row;
      }, 10_000);
      const deliveries = service.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
      await eventually(async () => !(await deliveries.getJob(`${approval.id}:1`)), 5_000);
      // Its delayed safety net, waiting in the fair share, was withdrawn when it ended.
      const fairShare = service.app.get<FairShare>(fairShareToken(DELIVERY_QUEUE));
      await eventually(async () => !(await fairShare.has(`${approval.id}:1`)), 5_000);
      expect(late.received).toHaveLength(1);
    } finally {
      await late.stop();
    }
  });
});
