/**
 * Where PostgreSQL's CPU went while documents were ingested, by step: each text vector (a generated column)
 * and each index's upkeep, measured by doing that step again over the rows the ingestion stored, in one
 * session on this machine whose backend's CPU is read from /proc.
 * - A vector: computing its column's expression over every row, less reading the rows.
 * - An index's upkeep: inserting the indexed columns of every row into a temporary table with that index,
 *   less the same insert without it; times the row versions the ingestion made per row (an update that
 *   is not HOT adds an entry to every index), but once for an index of a vector of the text (empty until
 *   the text is extracted). A temporary table writes no WAL and its rows go in one statement, so the real
 *   upkeep costs somewhat more; the rest of the measured total is statements, heap and TOAST writes, WAL,
 *   commits and vacuum.
 */
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { onDatabase } from './bench-database';

const TABLES = ['documents', 'document_chunks'];
const TICK_MS = 10;

export interface RowVersions {
  table: string;
  inserted: number;
  updated: number;
  hotUpdated: number;
}

/** Rows inserted and updated (HOT or not) per table so far: take it before and after the ingestion. */
export async function rowVersions(url: string): Promise<RowVersions[]> {
  return onDatabase(url, async (client) => {
    await client.query('SELECT pg_stat_force_next_flush()').catch(() => undefined);
    const { rows } = await client.query(
      `SELECT relname AS table, n_tup_ins AS inserted, n_tup_upd AS updated, n_tup_hot_upd AS "hotUpdated"
       FROM pg_stat_user_tables WHERE schemaname = 'connector' AND relname = ANY($1)`,
      [TABLES],
    );
    return rows.map((r) => ({
      table: r.table,
      inserted: Number(r.inserted),
      updated: Number(r.updated),
      hotUpdated: Number(r.hotUpdated),
    }));
  });
}

export interface DatabaseStep {
  step: string;
  ms: number;
}

/** The steps' CPU over what is stored now, given the row versions the ingestion made (after − before). */
export async function databaseCpuSplit(
  url: string,
  before: RowVersions[],
  after: RowVersions[],
): Promise<DatabaseStep[]> {
  return onDatabase(url, async (client) => {
    const pid: number = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    // Only this backend's CPU is read: no parallel workers.
    await client.query('SET max_parallel_workers_per_gather = 0');
    const timed = async (sql: string): Promise<number> => {
      const start = backendCpuMs(pid);
      await client.query(sql);
      return backendCpuMs(pid) - start;
    };
    const steps: DatabaseStep[] = [];
    for (const table of TABLES) {
      const rows = Number((await client.query(`SELECT count(*) AS n FROM connector.${table}`)).rows[0].n);
      if (!rows) continue;
      const versions = versionsPerRow(table, rows, before, after);
      const generated = await generatedColumns(client, table);
      steps.push(...(await vectors(table, generated, timed)));
      // A vector of the text is empty until the text is extracted: its index gets one real entry per row.
      const ofText = generated.filter((g) => /\btext\b/.test(g.expression)).map((g) => g.column);
      steps.push(...(await indexUpkeep(client, table, { versions, ofText }, timed)));
    }
    return steps;
  });
}

/** The generated columns of a table: name and expression. */
async function generatedColumns(client: Client, table: string): Promise<Array<{ column: string; expression: string }>> {
  const { rows } = await client.query(
    `SELECT a.attname AS column, pg_get_expr(d.adbin, d.adrelid) AS expression
     FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
     WHERE a.attgenerated = 's' AND d.adrelid = $1::regclass`,
    [`connector.${table}`],
  );
  return rows;
}

async function vectors(
  table: string,
  generated: Array<{ column: string; expression: string }>,
  timed: (sql: string) => Promise<number>,
): Promise<DatabaseStep[]> {
  const reading = await timed(`SELECT count(length(text)) FROM connector.${table}`);
  const steps: DatabaseStep[] = [];
  for (const { column, expression } of generated) {
    const ms = await timed(`SELECT count(length(text)), count(${expression}) FROM connector.${table}`);
    steps.push({ step: `text vector ${table}.${column}`, ms: Math.max(0, ms - reading) });
  }
  return steps;
}

async function indexUpkeep(
  client: Client,
  table: string,
  { versions, ofText }: { versions: number; ofText: string[] },
  timed: (sql: string) => Promise<number>,
): Promise<DatabaseStep[]> {
  const columns: string[] = (
    await client.query(
      `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attname <> 'text'`,
      [`connector.${table}`],
    )
  ).rows.map((r) => `"${r.attname}"`);
  const { rows: indexes } = await client.query(
    `SELECT c.relname AS name, am.amname AS method, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
     WHERE i.indrelid = $1::regclass`,
    [`connector.${table}`],
  );
  await client.query(
    `DROP TABLE IF EXISTS pg_temp.source; CREATE TEMP TABLE source AS SELECT ${columns.join(', ')} FROM connector.${table}`,
  );
  const insert = async (definitions: string[]): Promise<number> => {
    await client.query('DROP TABLE IF EXISTS pg_temp.target; CREATE TEMP TABLE target (LIKE pg_temp.source)');
    for (const definition of definitions)
      await client.query(
        definition.replace(/^CREATE (UNIQUE )?INDEX \S+ ON \S+ /, 'CREATE $1INDEX ON pg_temp.target '),
      );
    return timed('INSERT INTO pg_temp.target SELECT * FROM pg_temp.source');
  };
  const bare = await insert([]);
  const steps: DatabaseStep[] = [];
  const btrees = indexes.filter((i) => i.method === 'btree');
  steps.push({
    step: `index upkeep ${table}: ${btrees.length} btree indexes`,
    ms: Math.max(0, (await insert(btrees.map((i) => i.definition))) - bare) * versions,
  });
  for (const index of indexes.filter((i) => i.method !== 'btree'))
    steps.push({
      step: `index upkeep ${table}: ${index.name} (${index.method})`,
      ms:
        Math.max(0, (await insert([index.definition])) - bare) *
        (ofText.some((column) => index.definition.includes(`(${column})`) || index.definition.includes(`("${column}")`))
          ? 1
          : versions),
    });
  await client.query('DROP TABLE pg_temp.target; DROP TABLE pg_temp.source');
  return steps;
}

/** Index entries each stored row got: one per insert and per update that was not HOT. */
function versionsPerRow(table: string, rows: number, before: RowVersions[], after: RowVersions[]): number {
  const of = (list: RowVersions[]) => list.find((v) => v.table === table) ?? { inserted: 0, updated: 0, hotUpdated: 0 };
  const [b, a] = [of(before), of(after)];
  const entries = a.inserted - b.inserted + (a.updated - b.updated) - (a.hotUpdated - b.hotUpdated);
  return Math.max(1, entries / rows);
}

function backendCpuMs(pid: number): number {
  const line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = line.slice(line.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * Starts counting statements with pg_stat_statements where the server loads it (shared_preload_libraries);
 * false where it does not.
 */
export async function countStatements(url: string): Promise<boolean> {
  return onDatabase(url, async (client) => {
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('SELECT pg_stat_statements_reset()');
      return true;
    } catch {
      return false;
    }
  });
}

/** Statements run so far in the database of `url` (pg_stat_statements; START and COMMIT count as statements). */
export async function statementsSoFar(url: string): Promise<number> {
  return onDatabase(url, async (client) => {
    const { rows } = await client.query(
      `SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return Number(rows[0].calls);
  });
}

export interface StatementTime {
  statement: string;
  calls: number;
  ms: number;
}

/** The statements of this database that took the most time in their backends since `countStatements`. */
export async function topStatements(url: string, limit = 12): Promise<StatementTime[]> {
  return onDatabase(url, async (client) => {
    const { rows } = await client.query(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS statement, calls, total_exec_time AS ms
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ statement: r.statement, calls: Number(r.calls), ms: Number(r.ms) }));
  });
}
