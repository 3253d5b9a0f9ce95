import { Cluster, Redis } from 'ioredis';
import { clusterNodesOf, connectRedis, keyPrefixOf, RedisConnection } from './redis-connection';
import { QueueConnection } from './queue-connection';

describe('RedisConnection', () => {
  const single: RedisConnection = { url: 'redis://:pw@127.0.0.1:6379' };
  const cluster: RedisConnection = { url: 'rediss://app:p%40ss@ignored:6379', clusterNodes: ' a:7000,[::1]:7001, ' };

  it('reads the cluster nodes, and none from an unset or blank list', () => {
    expect(clusterNodesOf(cluster)).toEqual([
      { host: 'a', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
    expect(clusterNodesOf(single)).toEqual([]);
    expect(clusterNodesOf({ ...single, clusterNodes: ' ' })).toEqual([]);
  });

  it('tags the key prefix on a cluster only, so a single server keeps its existing keys', () => {
    expect(keyPrefixOf(cluster, 'bull')).toBe('{bull}');
    expect(keyPrefixOf(cluster, '')).toBe('{bull}');
    expect(keyPrefixOf(single, 'bull')).toBe('bull');
    expect(new QueueConnection(single).options('bull', { enableReadyCheck: false })).toEqual({
      url: single.url,
      prefix: 'bull',
      redis: { enableReadyCheck: false, retryStrategy: expect.any(Function) },
    });
    expect(new QueueConnection(cluster).options('bull')).toMatchObject({ prefix: '{bull}' });
  });

  it('gives Bull TLS for a rediss:// URL on a single server (Bull reads only host, port, db and login from a URL)', async () => {
    const queue = new QueueConnection({ url: 'rediss://:pw@127.0.0.1:1' }).queue('tls-check', 'p');
    try {
      expect(queue.client.options).toMatchObject({ tls: {}, password: 'pw' });
    } finally {
      queue.client.disconnect();
    }
    const plain = new QueueConnection(single).queue('plain-check', 'p');
    expect(plain.client.options.tls).toBeUndefined();
    plain.client.disconnect();
  });

  it("gives every node of a cluster REDIS_URL's user, password and TLS", () => {
    const sut = connectRedis(cluster, { lazyConnect: true, keyPrefix: 'p:', connectTimeout: 1000 });
    try {
      expect(sut).toBeInstanceOf(Cluster);
      expect(sut.options).toMatchObject({
        lazyConnect: true,
        keyPrefix: 'p:',
        redisOptions: { username: 'app', password: 'p@ss', tls: {}, connectTimeout: 1000 },
      });
    } finally {
      sut.disconnect();
    }
    const plain = connectRedis(single, { lazyConnect: true });
    expect(plain).toBeInstanceOf(Redis);
    plain.disconnect();
  });
});
