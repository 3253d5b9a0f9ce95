import { Client } from 'pg';
import { DataSource } from 'typeorm';

/**
 * Creates the service's schema and runs pending migrations while holding a PostgreSQL advisory lock,
 * so replicas (and parallel test files) starting together migrate once, one after another.
 */
export async function migrateWithLock(dataSource: DataSource, url: string, schema: string): Promise<void> {
  const lockClient = new Client({ connectionString: url });
  await lockClient.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${schema}`]);
    await lockClient.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`]).catch(() => undefined);
    await lockClient.end();
  }
}
