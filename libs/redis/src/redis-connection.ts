import Redis, { Cluster, ClusterNode, RedisOptions } from 'ioredis';

/**
 * Where Redis is: one server at `url`, or, when `clusterNodes` lists any (`host:port,host:port`), a
 * Redis Cluster reached through them, with `url`'s user, password and TLS (`rediss://`) on every node.
 */
export interface RedisConnection {
  url: string;
  clusterNodes?: string;
}

/** Options for one client; on a cluster, the node connections get them, except the cluster-wide four. */
export type RedisClientOptions = RedisOptions & { lazyConnect?: boolean; enableOfflineQueue?: boolean };

export const redisConnectionOf = (env: { REDIS_URL: string; REDIS_CLUSTER_NODES?: string }): RedisConnection => ({
  url: env.REDIS_URL,
  clusterNodes: env.REDIS_CLUSTER_NODES,
});

export function clusterNodesOf(connection: RedisConnection): ClusterNode[] {
  return (connection.clusterNodes ?? '')
    .split(',')
    .map((node) => node.trim())
    .filter(Boolean)
    .map((node) => {
      const at = node.lastIndexOf(':');
      return { host: node.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(node.slice(at + 1)) };
    });
}

export const isCluster = (connection: RedisConnection): boolean => clusterNodesOf(connection).length > 0;

/**
 * The prefix of this service's keys. On a cluster it is a hash tag, `{prefix}`: Bull's scripts build
 * a queue's keys from the prefix, so they all have to hash to one slot (an empty tag would not count:
 * Bull's default stands in). A single server keeps the plain prefix, so existing keys stay where they are.
 */
export const keyPrefixOf = (connection: RedisConnection, prefix: string): string =>
  isCluster(connection) ? `{${prefix || 'bull'}}` : prefix;

export function connectRedis(connection: RedisConnection, options: RedisClientOptions = {}): Redis | Cluster {
  if (!isCluster(connection)) return new Redis(connection.url, options);
  const { lazyConnect, enableOfflineQueue, keyPrefix, enableAutoPipelining, ...nodeOptions } = options;
  return new Cluster(clusterNodesOf(connection), {
    lazyConnect,
    enableOfflineQueue,
    keyPrefix,
    enableAutoPipelining,
    // Without a ready check on its nodes, a client does not wait for cluster_state:ok either: while a
    // slot is unserved, connect() would otherwise never settle, and Bull's close() waits on it.
    enableReadyCheck: nodeOptions.enableReadyCheck,
    redisOptions: { ...nodeOptions, ...credentialsOf(connection.url) },
  });
}

/** What REDIS_URL says that holds for every node of a cluster: who logs in, and whether over TLS. */
function credentialsOf(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const parsed = new URL(url);
  return {
    ...(parsed.username && { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password && { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' && { tls: {} }),
  };
}
