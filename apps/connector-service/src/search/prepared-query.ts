import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Runs a statement as a named prepared statement: each pooled connection parses it once and PostgreSQL
 * may keep its plan, instead of planning a long query on every call (several ms of a search's budget).
 * `name` must be unique per statement text.
 */
export async function preparedQuery<T>(db: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const runner = db.createQueryRunner();
  try {
    const client = (await runner.connect()) as PoolClient;
    const result = await client.query({ name, text, values });
    return result.rows as T[];
  } finally {
    await runner.release();
  }
}
