import { Client } from 'pg';
import Redis from 'ioredis';
import type { EmbeddedPostgresHandle } from '../scripts/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const runId = process.env.TEST_RUN_ID;
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  if (runId && adminUrl) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [
      `test_${runId}`,
      `test_${runId}\\_%`,
    ]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
  }
  if (runId && process.env.REDIS_URL) await deleteKeys(process.env.REDIS_URL, `t${runId}*`);
  const embedded = (globalThis as Record<string, unknown>).__EMBEDDED_PG__ as EmbeddedPostgresHandle | undefined;
  await embedded?.stop();
}

async function deleteKeys(url: string, pattern: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
