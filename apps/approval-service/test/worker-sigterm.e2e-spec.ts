import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { after, eventually, freePort, HttpPeer, killChild, startChildApp, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const MAIN = 'apps/approval-service/test/support/run-approval-main.ts';

type Exit = { code: number | null; signal: string | null } | string;

/**
 * A worker-only process (no HTTP server; PROCESS_ROLE=worker) stopped by SIGTERM, as Kubernetes stops a worker pod:
 * the delivery it is sending has until SHUTDOWN_GRACE_MS after the signal to finish and be recorded once; one
 * still in flight then is cut and sent again by another worker, not logged as the receiver's failure.
 */
describe('An approval-service worker process stopped by SIGTERM', () => {
  let api: ApprovalTestApp;
  let runtime: TestCaller;
  let worker: ChildProcess | undefined;
  let nextWorker: ApprovalTestApp | undefined;
  let openReceiver: HttpPeer | undefined;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    api = await startApprovalApp({}, 'api');
    runtime = await testCaller({ roles: ['agent-runtime'] });
  }, 60_000);
  afterEach(async () => {
    release();
    if (worker) await killChild(worker);
    await nextWorker?.close();
    await openReceiver?.stop();
  });
  afterAll(() => api?.close());

  /** When the first webhook's connection closed: answered, or cut by its sender. */
  let firstClosedAt = 0;

  /** A receiver that holds the first webhook until `release()`, then answers 200; later ones at once. */
  async function holdingReceiver(): Promise<HttpPeer> {
    const released = new Promise<void>((resolve) => (release = resolve));
    const receiver: HttpPeer = new HttpPeer(async (_req, res) => {
      if (receiver.received.length === 1) {
        res.once('close', () => (firstClosedAt = Date.now()));
        await released;
      }
      res.writeHead(200).end();
    });
    openReceiver = await receiver.start();
    return receiver;
  }

  /** A worker child started by main.ts; its liveness answers on METRICS_PORT, which tells the test it has started. */
  async function startWorker(env: Record<string, unknown> = {}): Promise<ChildProcess> {
    const port = await freePort();
    worker = await startChildApp(MAIN, {
      ...api.env,
      PORT: port,
      METRICS_PORT: port,
      BIND_ADDRESS: '127.0.0.1',
      ...env,
    });
    return worker;
  }

  async function requestApproval(
    url: string,
    webhook: Record<string, unknown> = {},
    caller = runtime,
  ): Promise<string> {
    const created = await request(api.app.getHttpServer())
      .post('/v1/approvals')
      .set(caller.auth)
      .send(approvalRequest(url, webhook))
      .expect(201);
    return created.body.approvalId;
  }

  /** The approval's status and its delivery log entries, as its requester reads them. */
  async function deliveriesOf(approvalId: string, caller = runtime) {
    const approval = (await request(api.app.getHttpServer()).get(`/v1/approvals/${approvalId}`).set(caller.auth)).body;
    const log = approval.log as Array<{ type: string; httpStatus: number | null; error?: string | null }>;
    return {
      status: approval.status,
      deliveries: log.filter((entry) => entry.type.startsWith('Deliver')).map((e) => [e.type, e.httpStatus]),
    };
  }

  it('finishes the delivery in flight, records it once, sends no other meanwhile, then exits', async () => {
    const child = await startWorker();
    const receiver = await holdingReceiver();
    const approvalId = await requestApproval(receiver.url);
    await receiver.waitForRequests(1, 20_000);

    const exit = exitOf(child);
    child.kill('SIGTERM');
    await after(1_000);
    expect({ stillRunning: child.exitCode === null && child.signalCode === null }).toEqual({ stillRunning: true });
    // Another tenant's, requested while the worker waits: it starts no attempt, and the approval waits for the next worker.
    const otherTenant = await testCaller({ roles: ['agent-runtime'] });
    const requestedMeanwhile = await requestApproval(receiver.url, {}, otherTenant);
    await after(1_000);

    release();
    expect(await within(exit, 20_000)).toEqual(expect.objectContaining({ signal: 'SIGTERM' }));
    const delivered = {
      status: 'AwaitingDecision',
      deliveries: [
        ['DeliveryAttempt', 200],
        ['Delivered', null],
      ],
    };
    expect(await deliveriesOf(approvalId)).toEqual(delivered);
    await after(500);
    expect(receiver.received).toHaveLength(1);

    nextWorker = await startApprovalApp({ ...api.env }, 'worker');
    await receiver.waitForRequests(2, 20_000);
    const recorded = async () => (await deliveriesOf(requestedMeanwhile, otherTenant)).deliveries.length === 2;
    await eventually(recorded, 10_000);
    expect(await deliveriesOf(requestedMeanwhile, otherTenant)).toEqual(delivered);
    expect(receiver.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([approvalId, requestedMeanwhile]);
  }, 90_000);

  it('cuts a delivery still in flight when the grace is over; another worker sends it again, no failure logged', async () => {
    const graceMs = 1_000;
    // The cut first attempt is sent again by its delayed job: after its timeout and DELIVERY_STRANDED_AFTER_MS.
    const child = await startWorker({ SHUTDOWN_GRACE_MS: graceMs, DELIVERY_STRANDED_AFTER_MS: 1_000 });
    const receiver = await holdingReceiver();
    const approvalId = await requestApproval(receiver.url, { timeoutSeconds: 5 });
    await receiver.waitForRequests(1, 20_000);

    const exit = exitOf(child);
    const signalled = Date.now();
    child.kill('SIGTERM');
    expect(await within(exit, 10_000)).toEqual(expect.objectContaining({ signal: 'SIGTERM' }));
    expect(firstClosedAt - signalled).toBeGreaterThanOrEqual(graceMs);
    expect(await deliveriesOf(approvalId)).toEqual({ status: 'Pending', deliveries: [] });

    // The next pod of the rollout.
    nextWorker = await startApprovalApp({ ...api.env }, 'worker');
    await receiver.waitForRequests(2, 20_000);
    const [first, again] = receiver.received;
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    await after(500);
    expect(await deliveriesOf(approvalId)).toEqual({
      status: 'AwaitingDecision',
      deliveries: [
        ['DeliveryAttempt', 200],
        ['Delivered', null],
      ],
    });
    expect(receiver.received).toHaveLength(2);
  }, 90_000);
});

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** `exit`, or what says the process was still running `ms` later. */
async function within(exit: Promise<Exit>, ms: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const stillRunning = new Promise<string>(
    (resolve) => (timer = setTimeout(resolve, ms, `still running ${ms} ms later`)),
  );
  try {
    return await Promise.race([exit, stillRunning]);
  } finally {
    clearTimeout(timer);
  }
}
