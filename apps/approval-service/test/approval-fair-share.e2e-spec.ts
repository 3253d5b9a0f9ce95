import type { ChildProcess } from 'node:child_process';
import { ApprovalRequestJob } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { eventually, HttpPeer, killChild, startChildApp } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const WORKER = 'apps/approval-service/test/support/run-approval.ts';
/** Delivery slots of each worker process: two of them share 2 × 10, 2 × 2 of them reserved for a newcomer. */
const SLOTS_PER_WORKER = 10;
/** Half of the 16 slots not reserved. */
const HALF_NOT_RESERVED = 8;

/**
 * Delivery slots are shared across every worker process: tenant A's hanging receivers hold at most half
 * of those not reserved (counted over both workers), and tenant B's approvals go out at once meanwhile.
 * A's attempts go to two receivers, since one receiver holds at most half of its tenant's share.
 */
describe('Fair share of delivery slots across two worker processes', () => {
  let api: ApprovalTestApp;
  let runtime: ApprovalRuntimeClient;
  let hanging: HttpPeer[] = [];
  let prompt: HttpPeer;
  const hangingReceived = () => hanging.reduce((sum, peer) => sum + peer.received.length, 0);
  const workers: ChildProcess[] = [];
  const requestedAt = new Map<string, number>();

  const enqueue = async (tenantId: string, url: string, webhook: Record<string, unknown>) => {
    const body = { ...approvalRequest(url, webhook), tenantId };
    requestedAt.set(body.executionId, Date.now());
    await runtime.request(body as ApprovalRequestJob);
    return body.executionId;
  };

  beforeAll(async () => {
    api = await startApprovalApp({ DELIVERY_SLOTS: SLOTS_PER_WORKER }, 'api');
    runtime = new ApprovalRuntimeClient(String(api.env.REDIS_URL), { prefix: String(api.env.QUEUE_PREFIX) });
    // Each takes the request and never answers.
    hanging = await Promise.all([0, 1].map(() => new HttpPeer(() => undefined).start()));
    prompt = await new HttpPeer().start();
    for (let i = 0; i < 2; i++) workers.push(await startChildApp(WORKER, api.env, 'worker'));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => killChild(worker)));
    await Promise.all(hanging.map((peer) => peer.stop()));
    await prompt?.stop();
    await runtime?.close();
    await api?.close();
  });

  it("holds tenant A's 50 hanging receivers to half of the slots not reserved while tenant B's 20 approvals are delivered at once", async () => {
    for (let i = 0; i < 50; i++)
      await enqueue('tenant-a', hanging[i % 2].url, { timeoutSeconds: 3600, maxRetryAttempts: 0 });
    // A takes its half of the slots, whichever worker runs them, and no more.
    await eventually(() => hangingReceived() >= HALF_NOT_RESERVED, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(hangingReceived()).toBe(HALF_NOT_RESERVED);

    const ofB: string[] = [];
    for (let i = 0; i < 20; i++) ofB.push(await enqueue('tenant-b', prompt.url, { timeoutSeconds: 30 }));
    const delivered = await eventually(() => {
      const seen = new Map(prompt.received.map((r) => [JSON.parse(r.body).executionId as string, r.at]));
      return ofB.every((id) => seen.has(id)) && seen;
    }, 20_000);
    const waits = ofB.map((id) => delivered.get(id)! - requestedAt.get(id)!);
    // Within seconds even on a loaded machine, where behind A they would wait for A's hour-long attempts.
    expect(Math.max(...waits)).toBeLessThan(5000);
    // A's attempts never ended: every one it ever started is still in flight, so none above half.
    expect(hangingReceived()).toBe(HALF_NOT_RESERVED);
  }, 120_000);
});
