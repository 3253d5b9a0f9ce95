import { Cluster } from 'ioredis';
import { connectRedis, RedisConnection } from './redis-connection';

/**
 * Deletes every key matching `pattern`, a SCAN page at a time (never KEYS: the Redis may be shared).
 * SCAN walks one server, so on a cluster it walks each master, and deletes there key by key: keys of
 * different slots cannot go in one command, even on the same node.
 */
export async function deleteKeys(connection: RedisConnection, pattern: string): Promise<number> {
  const client = connectRedis(connection, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    // A cluster knows its masters once it has connected; the ping waits for that.
    await client.ping();
    const servers = client instanceof Cluster ? client.nodes('master') : [client];
    for (const server of servers)
      for await (const keys of server.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
        if (!keys.length) continue;
        await server.pipeline(keys.map((key) => ['unlink', key])).exec();
        deleted += keys.length;
      }
  } finally {
    client.disconnect();
  }
  return deleted;
}
