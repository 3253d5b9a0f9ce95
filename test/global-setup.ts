import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import Redis from 'ioredis';
import { startEmbeddedPostgres } from '../scripts/embedded-postgres';
import { ADMIN_DB_URL_DEFAULT } from './test-env';

/**
 * One fresh PostgreSQL database and one Redis key prefix per `npm test` run. When no server answers at
 * TEST_DATABASE_URL (default 127.0.0.1:5432), an embedded PostgreSQL is started for the run.
 */
export default async function globalSetup(): Promise<void> {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let adminUrl = process.env.TEST_DATABASE_URL ?? ADMIN_DB_URL_DEFAULT;
  if (!(await answers(adminUrl))) {
    const embedded = await startEmbeddedPostgres({
      dataDir: `.data/test-pg-${runId}`,
      port: 54000 + Math.floor(Math.random() * 900),
      persistent: false,
    });
    (globalThis as Record<string, unknown>).__EMBEDDED_PG__ = embedded;
    adminUrl = embedded.adminUrl;
  }
  const database = `test_${runId}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();

  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.DATABASE_URL = url.toString();
  process.env.TEST_RUN_ID = runId;
  process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await assertRedis(process.env.REDIS_URL);
}

async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function assertRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    throw new Error(
      `Tests need a Redis at ${url} (set TEST_REDIS_URL). Start one with: redis-server --daemonize yes --port 6379`,
    );
  } finally {
    redis.disconnect();
  }
}
