import type { ChildProcess } from 'node:child_process';
import { eventually, freePort, HttpPeer, killChild, startChildApp, testCaller, testEnv } from '@app/testing';
import { SIGNING_SECRET } from './support/approval-app';

const MAIN = 'apps/approval-service/test/support/run-approval-main.ts';
const DRAIN_MS = 3_000;

/** An answer's status, or how the request failed (a refused connection, say). */
async function statusOf(url: string): Promise<number | string> {
  try {
    return (await fetch(url)).status;
  } catch (error) {
    return String((error as { cause?: { code?: string } }).cause?.code ?? error);
  }
}

describe('An approval-service API process stopped by SIGTERM (a rolling restart)', () => {
  let child: ChildProcess | undefined;
  let receiver: HttpPeer | undefined;

  afterAll(async () => {
    if (child) await killChild(child);
    await receiver?.stop();
  });

  it('is not ready but live while it drains, then answers the request still in flight as usual', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver = await new HttpPeer(async (_req, res) => {
      await released;
      res.writeHead(200).end();
    }).start();
    const port = await freePort();
    const env = testEnv({
      PORT: port,
      BIND_ADDRESS: '127.0.0.1',
      WEBHOOK_ALLOW_INSECURE: true,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
      WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
      SHUTDOWN_DRAIN_MS: DRAIN_MS,
    });
    child = await startChildApp(MAIN, env, 'api');
    const url = `http://127.0.0.1:${port}`;
    expect(await statusOf(`${url}/health/ready`)).toBe(200);

    // A test delivery holds its request open until the receiver answers; it needs the webhook sender's agents.
    const caller = await testCaller({ roles: ['agent-runtime'] });
    const inFlight = fetch(`${url}/v1/approvals/test-webhook`, {
      method: 'POST',
      headers: { ...caller.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        webhook: { url: receiver.url, authentication: { type: 'None' }, timeoutSeconds: 20, message: 'Check' },
      }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as unknown }));
    await receiver.waitForRequests(1, 10_000);

    const exited = new Promise((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const readyWhileDraining = await eventually(async () => {
      const status = await statusOf(`${url}/health/ready`);
      if (status !== 503) throw new Error(`readiness answered ${status}`);
      return status;
    }, DRAIN_MS / 2).catch((error: Error) => error.message);
    const liveWhileDraining = await statusOf(`${url}/health/live`);
    const drainedFor = Date.now() - signalled;
    // After the drain it takes no new connection; the request in flight is answered only then.
    const refusedAfter = await eventually(async () => {
      const status = await statusOf(`${url}/health/live`);
      return status === 'ECONNREFUSED' && Date.now() - signalled;
    }, DRAIN_MS + 5_000);
    release();

    expect(await inFlight).toEqual({
      status: 200,
      body: { delivered: true, httpStatus: 200, durationMs: expect.any(Number), error: null },
    });
    expect({ readyWhileDraining, liveWhileDraining, probedWithinDrain: drainedFor < DRAIN_MS }).toEqual({
      readyWhileDraining: 503,
      liveWhileDraining: 200,
      probedWithinDrain: true,
    });
    expect(refusedAfter).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    // Then it ends by itself, as the signal asks.
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
  }, 180_000);
});
