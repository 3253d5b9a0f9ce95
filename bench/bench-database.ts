/**
 * A bench's own database on the PostgreSQL at BENCH_ADMIN_DATABASE_URL: dropped when the bench ends, and
 * also when it fails half-way (`failBench`), unless it is to be kept.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Databases made and not dropped yet: a failing bench drops them on its way out. */
const undropped = new Set<string>();

/** A new `bench_<random>` database, or `name` (reused when it exists); dropped by `stop` unless `keep`. */
export async function benchDatabase({ name = `bench_${randomBytes(3).toString('hex')}`, keep = false } = {}): Promise<{
  url: string;
  stop: () => Promise<void>;
}> {
  await onAdmin(async (admin) => {
    if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount)
      await admin.query(`CREATE DATABASE ${name}`);
  });
  if (!keep) undropped.add(name);
  return {
    url: ADMIN_URL.replace(/\/[^/]*$/, `/${name}`),
    stop: async () => {
      if (keep) return void console.log(`database kept: ${name}`);
      await drop(name);
    },
  };
}

/** Ends a bench that failed: its error printed, its databases dropped (its child processes end with it). */
export async function failBench(error: unknown): Promise<never> {
  console.error(error);
  for (const name of undropped)
    await drop(name).catch((e: Error) => console.error(`${name} not dropped: ${e.message}`));
  process.exit(1);
}

async function drop(name: string): Promise<void> {
  await onAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  undropped.delete(name);
}

function onAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  return onDatabase(ADMIN_URL, work);
}

/** `work` on a connection of its own to the database at `url`, closed after. */
export async function onDatabase<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
