import Redis from 'ioredis';
import type { DataSource } from 'typeorm';

/** Every value of every column of a schema's tables, whatever its type, as text: where a secret might rest. */
export async function everyStoredValue(db: DataSource, schema: string): Promise<string> {
  const tables: Array<{ table_name: string }> = await db.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
    [schema],
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows: Array<{ v: string }> = await db.query(`SELECT t::text AS v FROM "${schema}"."${table_name}" t`);
    parts.push(...rows.map((r) => `${table_name}: ${r.v}`));
  }
  return parts.join('\n');
}

/** Every key under `prefix` in Redis and every value it holds (strings, hashes, lists, sets, sorted sets, streams). */
export async function everyRedisValue(redisUrl: string, prefix: string): Promise<string> {
  const redis = new Redis(redisUrl);
  try {
    const parts: string[] = [];
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      for await (const keys of redis.scanStream({ match: pattern, count: 1000 }) as AsyncIterable<string[]>) {
        for (const key of keys) parts.push(`${key} ${JSON.stringify(await valueOf(redis, key))}`);
      }
    }
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}

async function valueOf(redis: Redis, key: string): Promise<unknown> {
  switch (await redis.type(key)) {
    case 'string':
      return redis.get(key);
    case 'hash':
      return redis.hgetall(key);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, 0, -1, 'WITHSCORES');
    case 'stream':
      return redis.xrange(key, '-', '+');
    default:
      return null;
  }
}

/** The names of the secrets found in `text`, each looked for as written and in the encodings it may travel in. */
export function secretsIn(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => spellings(value).some((spelling) => text.includes(spelling)))
    .map(([name]) => name);
}

function spellings(value: string): string[] {
  return [
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('base64url'),
  ];
}
