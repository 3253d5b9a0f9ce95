import type { ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { eventually, HttpPeer, isolatedDatabase, testCaller } from '@app/testing';
import { QueueConnection, redisConnectionOf } from '@app/redis';
import { DELIVERY_QUEUE } from '../src/delivery/delivery.jobs';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

type Answer = (request: number, res: ServerResponse) => void;

/** What a Redis that restarts without persistence leaves of one service's keys: nothing. */
async function loseQueuedWork(redis: Redis, prefix: string): Promise<number> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  return keys.length;
}

describe('An approval whose queued delivery work Redis lost', () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl);
  let databaseUrl: string;
  const apps: ApprovalTestApp[] = [];
  const receivers: HttpPeer[] = [];

  beforeAll(async () => {
    // A database of its own: the sweep sends on every stalled approval it finds.
    databaseUrl = await isolatedDatabase();
  });

  afterAll(async () => {
    for (const receiver of receivers) await receiver.stop();
    for (const app of apps) await app.close().catch(() => undefined);
    await redis.quit();
  });

  const start = async (env: Record<string, unknown>) => {
    const app = await startApprovalApp({ DATABASE_URL: databaseUrl, DELIVERY_STRANDED_AFTER_MS: 1000, ...env });
    apps.push(app);
    return app;
  };
  /** Each test's sweeping app stops with it: another sweeping the same database would send what it sends. */
  const stop = async (app: ApprovalTestApp) => {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  };

  /**
   * Requests an approval whose receiver answers as `answer` says, waits until `sent` webhooks came, stops
   * the service, empties its Redis keys and starts another: returns it with the approval's status there.
   */
  async function loseWorkAfter(
    sent: number,
    answer: Answer,
    timeoutSeconds = 1,
    beforeRestart?: (prefix: string, approvalId: string) => Promise<void>,
  ) {
    const first = await start({ DELIVERY_SWEEP_MS: 3_600_000 });
    const { tenantId } = await testCaller({ roles: ['agent-runtime'] });
    const receiver: HttpPeer = new HttpPeer((_req, res: ServerResponse) => answer(receiver.received.length, res));
    await receiver.start();
    receivers.push(receiver);
    const job = await first.requests.add({
      ...approvalRequest(receiver.url, { timeoutSeconds, maxRetryAttempts: 3 }),
      tenantId,
    });
    const { approvalId } = (await job.finished()) as { approvalId: string };
    await receiver.waitForRequests(sent, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // its outcome recorded (or not) by now
    await stop(first);
    const prefix = String(first.env.QUEUE_PREFIX);
    expect(await loseQueuedWork(redis, prefix)).toBeGreaterThan(0);
    expect(receiver.received).toHaveLength(sent);
    await beforeRestart?.(prefix, approvalId);

    const second = await start({ QUEUE_PREFIX: prefix, DELIVERY_SWEEP_MS: 500 });
    const status = async (): Promise<string> =>
      (await second.db.query('SELECT status FROM approval.approvals WHERE id = $1', [approvalId]))[0].status;
    return { approvalId, receiver, status, second };
  }

  const awaitingDecision = async (status: () => Promise<string>, receiver: HttpPeer) =>
    eventually(async () => {
      const now = await status();
      if (now === 'AwaitingDecision') return true;
      throw new Error(`status ${now}, webhooks sent ${receiver.received.length}`);
    }, 20_000);

  it('is sent on from its logged attempt: a retry that waited in Redis comes after all', async () => {
    const { approvalId, receiver, status, second } = await loseWorkAfter(1, (request, res) =>
      res.writeHead(request === 1 ? 500 : 200).end(),
    );
    await awaitingDecision(status, receiver);
    await stop(second);
    expect(receiver.received).toHaveLength(2);
    expect(JSON.parse(receiver.received[1].body).approvalId).toBe(approvalId);
  }, 60_000);

  it('is sent again when its first attempt was cut short and the delayed job meant to resend it is gone', async () => {
    // A timeout long enough that the first attempt is still in flight, and its delayed job not yet due, at the stop.
    const { receiver, status, second } = await loseWorkAfter(
      1,
      (request, res) => {
        if (request > 1) res.writeHead(200).end(); // the first is held until the service stops
      },
      5,
    );
    expect(await status()).toBe('Pending'); // the shutdown recorded no attempt
    await awaitingDecision(status, receiver);
    await stop(second);
    expect(receiver.received).toHaveLength(2);
  }, 60_000);

  it("is sent on even when Bull still keeps the attempt's job as failed (its tries spent)", async () => {
    const keepFailed = async (prefix: string, approvalId: string) => {
      const connection = new QueueConnection(redisConnectionOf({ REDIS_URL: redisUrl }));
      const queue = connection.queue(DELIVERY_QUEUE, prefix);
      const failed = new Promise((resolve) => queue.on('failed', resolve));
      void queue.process(async () => {
        throw new Error('tries spent');
      });
      const job = await queue.add({ approvalId, attempt: 1 }, { jobId: `${approvalId}:1`, attempts: 1 });
      await failed;
      expect(await job.isFailed()).toBe(true);
      await queue.close();
      connection.disconnect();
    };
    const { receiver, status, second } = await loseWorkAfter(
      1,
      (request, res) => {
        if (request > 1) res.writeHead(200).end();
      },
      5,
      keepFailed,
    );
    await awaitingDecision(status, receiver);
    await stop(second);
    expect(receiver.received).toHaveLength(2);
  }, 60_000);

  it('is left alone while intake still sends its first attempt: the sweep sends nothing twice', async () => {
    // Sweeps every 100 ms: one comes within the 200 ms before the attempt's delayed job is written.
    const app = await start({ DELIVERY_SWEEP_MS: 100 });
    const { tenantId } = await testCaller({ roles: ['agent-runtime'] });
    const receiver = await new HttpPeer(async (_req, res: ServerResponse) => {
      if (receiver.received.length === 1) await new Promise((resolve) => setTimeout(resolve, 3000));
      res.writeHead(receiver.received.length === 1 ? 503 : 200).end();
    }).start();
    receivers.push(receiver);
    const job = await app.requests.add({
      ...approvalRequest(receiver.url, { timeoutSeconds: 4, maxRetryAttempts: 1 }),
      tenantId,
    });
    const { approvalId } = (await job.finished()) as { approvalId: string };
    // The first answers 503 after 3 s, past DELIVERY_STRANDED_AFTER_MS; its retry comes 2 s after that.
    await eventually(async () => {
      const rows = await app.db.query('SELECT status FROM approval.approvals WHERE id = $1', [approvalId]);
      return rows[0].status === 'AwaitingDecision' || undefined;
    }, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // sweeps that would send a third would have
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1].at - receiver.received[0].at).toBeGreaterThanOrEqual(4900);
  }, 60_000);
});
