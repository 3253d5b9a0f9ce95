import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * A database of its own for one app under test (dropped with the run's others at the end). Apps that
 * share the run's database see each other's rows; an app whose assertions span the whole database (the
 * blob garbage of content-addressed storage, schedules due anywhere) needs this.
 */
export async function isolatedDatabase(): Promise<string> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  const runId = process.env.TEST_RUN_ID;
  if (!adminUrl || !runId)
    throw new Error('TEST_ADMIN_DATABASE_URL is not set: run the tests through jest (global setup)');
  const name = `test_${runId}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
