import type { Job } from 'bull';
import { randomUUID } from 'node:crypto';
import { connectRedis, keyPrefixOf, QueueConnection, RedisConnection } from '@app/redis';
import { eventually, hasRedisServer, RunningRedisCluster, startRedisCluster } from '@app/testing';
import { FairShare } from './fair-share';

const onCluster = hasRedisServer() ? describe : describe.skip;

onCluster('FairShare on a Redis Cluster', () => {
  let cluster: RunningRedisCluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  // Its scripts reach each tenant's list and Bull's job keys by name: the `{prefix}` hash tag keeps them in one slot.
  it('admits, runs and gives back the slots of two tenants, every key under the hash tag', async () => {
    const connection: RedisConnection = { url: 'redis://unused', clusterNodes: cluster.nodes };
    const prefix = `fair-${randomUUID().slice(0, 8)}`;
    const queues = new QueueConnection(connection);
    const queue = queues.queue<{ tenant: string }>('fair-cluster', prefix, { maxRetriesPerRequest: null });
    const keyPrefix = keyPrefixOf(connection, prefix);
    const sut = new FairShare(queue, connectRedis(connection, { maxRetriesPerRequest: null }), keyPrefix, {
      aloneShare: 1,
    });
    const ran: string[] = [];
    try {
      void queue.process('work', 2, (job: Job<{ tenant: string }>) =>
        sut.run(job, async () => void ran.push(String(job.id))),
      );
      await sut.serve({ slots: 2, reserved: 0 });
      for (const tenant of ['a', 'b'])
        for (let i = 0; i < 3; i++)
          await sut.add(tenant, {
            id: `${tenant}-${i}`,
            name: 'work',
            data: { tenant },
            opts: { removeOnComplete: true },
          });
      await eventually(() => ran.length === 6, 20_000);
      expect(await sut.hold('a', 'inline-1')).toBe(true);
      await sut.release('inline-1');
      await eventually(async () => (await sut.state()).inUse === 0);
      expect(
        (await cluster.keys()).filter((key) => key.includes(prefix)).every((key) => key.startsWith(`{${prefix}}:`)),
      ).toBe(true);
    } finally {
      await sut.onApplicationShutdown();
      queues.disconnect();
    }
  }, 60_000);
});
