import type { Queue } from 'bull';
import { after, eventually, OwnRedis, startOwnRedis } from '@app/testing';
import { QueueConnection } from './queue-connection';

/** Long enough for Bull's own backoff (e^n ms, up to 20 s) to wait 8 s between tries. */
const OUTAGE_MS = 6000;

/**
 * Work waits for Redis through an outage and goes on soon after Redis is back: a queue's clients try again
 * at least every 2 s, as the services' other Redis clients do, whatever the outage lasted.
 */
describe('A queue after a Redis outage', () => {
  let redis: OwnRedis;
  let connection: QueueConnection;
  let queue: Queue<{ n: number }>;

  afterAll(async () => {
    await queue?.close().catch(() => undefined);
    connection?.disconnect();
    await redis?.destroy();
  });

  it('runs a job added after Redis came back within 3 s of its return', async () => {
    redis = await startOwnRedis();
    connection = new QueueConnection({ url: redis.url });
    queue = connection.queue('reconnect', `reconnect-${process.pid}`);
    const done: number[] = [];
    void queue.process(async (job) => void done.push(job.data.n));
    await queue.add({ n: 1 });
    await eventually(() => done.length === 1, 5000);

    await redis.stop();
    await after(OUTAGE_MS);
    await redis.start();
    const back = Date.now();
    void queue.add({ n: 2 });
    await eventually(() => done.length === 2, 30_000, 50);
    expect(Date.now() - back).toBeLessThan(3000);
  }, 60_000);
});
