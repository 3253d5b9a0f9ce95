import { ApprovalRequestJob } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { after, eventually, HttpPeer } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/** 10 slots, 2 of them reserved: a tenant's share is 4 (half of the 8 not reserved), a receiver's part of it 2. */
const SLOTS = 10;
const RECEIVER_PART = 2;

/**
 * CONTRACT.md: a receiver that hangs delays only its own approvals. Slots are shared between tenants, and
 * within a tenant's share between its receivers (webhook URL origins): one tenant's hanging receiver holds
 * part of the tenant's slots, and the tenant's approvals to its other receivers, retries included, go out
 * on time (they waited for the hanging attempts' hour before).
 */
describe("A hanging receiver and its tenant's other receivers", () => {
  let app: ApprovalTestApp;
  let runtime: ApprovalRuntimeClient;
  let hanging: HttpPeer;
  let prompt: HttpPeer;
  let flaky: HttpPeer;

  const ask = async (tenantId: string, url: string, webhook: Record<string, unknown>) => {
    const body = { ...approvalRequest(url, webhook), tenantId };
    await runtime.request(body as ApprovalRequestJob);
    return body.executionId;
  };
  const receivedAt = (peer: HttpPeer, executionId: string) =>
    peer.received.find((r) => JSON.parse(r.body).executionId === executionId)?.at;
  const statusOf = async (executionId: string) =>
    (await app.db.query('SELECT status FROM approval.approvals WHERE "executionId" = $1', [executionId]))[0]?.status;
  /** Whether `probe` holds within `ms`: the assertions below say what was seen, not only that it timed out. */
  const within = (ms: number, probe: () => boolean) =>
    eventually(probe, ms).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    app = await startApprovalApp({ DELIVERY_SLOTS: SLOTS }, 'all');
    runtime = new ApprovalRuntimeClient(String(app.env.REDIS_URL), { prefix: String(app.env.QUEUE_PREFIX) });
    hanging = await new HttpPeer(() => undefined).start(); // takes the request, never answers
    prompt = await new HttpPeer().start();
    // 503 to the first attempt, 200 to the retry.
    flaky = await new HttpPeer(
      (_req, res) => void res.writeHead(flaky.received.length === 1 ? 503 : 200).end(),
    ).start();
  }, 120_000);

  afterAll(async () => {
    await hanging?.stop(); // the hanging attempts end first, so the app can close
    await prompt?.stop();
    await flaky?.stop();
    await runtime?.close();
    await app?.close();
  });

  it("retries a 503 after 2 s while the same tenant's other receiver hangs", async () => {
    const retried = await ask('tenant-a', flaky.url, { timeoutSeconds: 5, maxRetryAttempts: 3 });
    await eventually(() => flaky.received.length >= 1, 10_000);
    const firstAt = flaky.received[0].at;
    for (let i = 0; i < 12; i++) await ask('tenant-a', hanging.url, { timeoutSeconds: 3600, maxRetryAttempts: 0 });

    // The retry is due 2 s after the 503; the hanging attempts have taken what they may by then.
    await within(12_000, () => flaky.received.length >= 2);
    expect(flaky.received.length).toBe(2);
    expect(flaky.received[1].at - firstAt).toBeGreaterThanOrEqual(1900);
    expect(flaky.received[1].at - firstAt).toBeLessThan(4000);
    await eventually(async () => (await statusOf(retried)) === 'AwaitingDecision', 5000);
  }, 60_000);

  it("delivers a new approval to the same tenant's prompt receiver at once while its other receiver hangs", async () => {
    const requestedAt = Date.now();
    const fresh = await ask('tenant-a', prompt.url, { timeoutSeconds: 30 });
    await within(5000, () => receivedAt(prompt, fresh) !== undefined);
    expect((receivedAt(prompt, fresh) ?? Infinity) - requestedAt).toBeLessThan(3000);
    await eventually(async () => (await statusOf(fresh)) === 'AwaitingDecision', 5000);
  }, 60_000);

  it("holds the hanging receiver to its part of its tenant's share, and delivers another tenant's approval at once", async () => {
    const requestedAt = Date.now();
    const ofB = await ask('tenant-b', prompt.url, { timeoutSeconds: 30 });
    await within(5000, () => receivedAt(prompt, ofB) !== undefined);
    expect((receivedAt(prompt, ofB) ?? Infinity) - requestedAt).toBeLessThan(3000);
    await after(1000);
    // 12 of its attempts have waited for a slot since the first test; the receiver has only its part of them.
    expect(hanging.received.length).toBe(RECEIVER_PART);
  }, 30_000);
});
