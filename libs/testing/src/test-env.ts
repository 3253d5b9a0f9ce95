import { randomBytes } from 'node:crypto';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
/** Fixed, so that every process of a test run reads what another wrote; random-looking, as start-up demands. */
export const TEST_ENCRYPTION_KEY = 'test:xByg90E1nYUpPc/Wt34yIu4iQTzf0yk1vh9ojesD6j0=';

/**
 * Environment for an app under test: the run's database (made by the global setup), and a Redis key
 * prefix of its own so test files running in parallel never take each other's jobs.
 */
export function testEnv(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const databaseUrl = (overrides.DATABASE_URL as string | undefined) ?? process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set: run the tests through jest (global setup)');
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `t${process.env.TEST_RUN_ID ?? 'x'}-${randomBytes(4).toString('hex')}`,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PORT: 0,
    PUBLIC_BASE_URL: 'http://127.0.0.1:3999',
    // The connector's peers in tests (simulator, OAuth hosts) listen on loopback.
    ALLOW_PRIVATE_NETWORKS: true,
    // Test files keep every core busy at normal priority: niced extraction threads would barely run.
    EXTRACTION_NICE: 0,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...overrides,
  };
}
