import type { Cluster } from 'ioredis';
import { hasRedisServer, RunningRedisCluster, startRedisCluster } from '@app/testing';
import { QueueConnection } from './queue-connection';

const onCluster = hasRedisServer() ? describe : describe.skip;

onCluster('QueueConnection on a Redis Cluster', () => {
  let cluster: RunningRedisCluster;
  let connection: QueueConnection;

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60000);

  afterEach(() => connection?.disconnect());
  afterAll(() => cluster?.stop());

  // Every queue subscribes on the shared subscriber client when it starts. ioredis 5 writes a SUBSCRIBE
  // that comes while its subscriber connection shakes hands, and then fails its own ready check (INFO is
  // not allowed in subscriber mode) and the subscriptions with it: a queue that lost its subscription
  // never starts processing.
  it("subscribes every queue's channel, even one that comes while the subscriber connection shakes hands", async () => {
    connection = new QueueConnection({ url: 'redis://unused', clusterNodes: cluster.nodes });
    const subscriber = connection.options('q').createClient!('subscriber', {}) as Cluster;
    await new Promise((resolve) => subscriber.once('ready', resolve));

    const first = subscriber.subscribe('first');
    await handshaking(subscriber);
    const second = subscriber.psubscribe('second*');

    await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
  });
});

/** Waits until the cluster's subscriber connection is connected and not yet ready (or, should that pass unseen, ready). */
async function handshaking(subscriber: Cluster): Promise<void> {
  const status = () => (subscriber as unknown as ClusterInternals).subscriber.getInstance()?.status ?? '';
  while (!['connect', 'ready'].includes(status())) await new Promise((resolve) => setImmediate(resolve));
}

interface ClusterInternals {
  subscriber: { getInstance(): { status: string } | null };
}
