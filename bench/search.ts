/**
 * `npm run bench:search`: search latency at the size of a real construction project. Seeds
 * `BENCH_DOCS` (100,000) documents with about 10 chunks each in 50 data sources through SQL (see
 * search-corpus.ts), starts the connector in `PROCESS_ROLE=api`, warms it, then sends `BENCH_REQUESTS`
 * (200) sequential searches per query kind — a very common word, a one-word query, three words, a phrase,
 * a word in about 3 % of documents, a rare word — each over all 50 data sources, with `pathPrefix`, with
 * `dataSourceId`, and as a user who may read 1 of the 50, and prints p50/p95/p99 per kind; then 20
 * concurrent searchers (`BENCH_CONCURRENCY`) for `BENCH_CONCURRENT_SECONDS` (20). Each query kind also
 * asks for passages (limit 10, the default 8,000 characters) over all 50 data sources and within one, and
 * as the user who may read 1 of the 50. Then the same 20 searchers send a mix of query kinds in turn (many
 * terms, OR, negation, a phrase, `pathPrefix`, `dataSourceId`, a deep page, as the user who may read 1 of
 * the 50), and each kind's CPU per query is measured alone: the machine's (every process: API, PostgreSQL,
 * this client), the API process's and this process's (the client). The connector runs built, in a process of its
 * own, as deployed (`npm run bench:search` builds it first). `BENCH_ONLY_MIX=1` runs only the mix. Words are chosen by
 * their measured document frequency. `BENCH_KEEP_DB=1` keeps the database (`bench_search_<docs>`) and
 * reuses it next time, so the corpus is seeded once; `BENCH_CASE_SECONDS` (30) bounds each case.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { testCaller, testEnv } from '@app/testing';
import { freePort, ROOT, Service, spawnService } from './built-service';
import { benchDatabase, failBench } from './bench-database';
import {
  BENCH_ADMIN,
  BENCH_MEMBER,
  BENCH_PROJECT,
  BENCH_TENANT,
  PATH_PREFIX,
  PHRASE_CANDIDATES,
  seedCorpus,
  sourceId,
  vocabulary,
} from './search-corpus';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CASE_MS = Number(process.env.BENCH_CASE_SECONDS ?? 30) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const CONCURRENT_MS = Number(process.env.BENCH_CONCURRENT_SECONDS ?? 20) * 1000;

type Search = (query: Record<string, string>, auth: Record<string, string>) => Promise<unknown>;
type Endpoint = 'search' | 'passages';
/** How many hits or passages an answer holds. */
const found = (body: unknown) =>
  ((body as { hits?: unknown[] }).hits ?? (body as { passages: unknown[] }).passages).length;

async function main(): Promise<void> {
  const db = await benchDatabase(process.env.BENCH_KEEP_DB ? { name: `bench_search_${DOCS}`, keep: true } : {});
  const port = await freePort();
  // The connector as deployed: built, in a process of its own, so that the searchers' work here does not
  // share its event loop. Starting it runs the migrations.
  const env = Object.entries(testEnv({ DATABASE_URL: db.url, PORT: port, LOG_LEVEL: 'warn', PROCESS_ROLE: 'api' }));
  const api = await spawnService(
    join(ROOT, 'dist/apps/connector-service/apps/connector-service/src/main.js'),
    Object.fromEntries(env.map(([name, value]) => [name, String(value)])),
    { port, timeoutMs: 180_000 },
  );

  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  await seedOnce(sql);
  await printSizes(sql);
  if (process.env.BENCH_SEED_ONLY) return void (await sql.end(), await api.stop(), await db.stop(), process.exit(0));
  const queries = await chooseQueries(sql);
  await sql.end();

  const admin = (await testCaller({ tenantId: BENCH_TENANT, userId: BENCH_ADMIN, roles: ['admin'] })).auth;
  const member = (await testCaller({ tenantId: BENCH_TENANT, userId: BENCH_MEMBER })).auth;
  const ask =
    (endpoint: Endpoint): Search =>
    async (query, auth) => {
      const limit = endpoint === 'search' ? '20' : '10';
      const url = `http://127.0.0.1:${port}/v1/projects/${BENCH_PROJECT}/${endpoint}`;
      const { status, body } = await get(`${url}?${new URLSearchParams({ limit, ...query })}`, auth);
      if (status !== 200) throw new Error(`${endpoint} ${JSON.stringify(query)} answered ${status}: ${body}`);
      return JSON.parse(body);
    };
  const search = ask('search');
  for (const q of Object.values(queries))
    for (let i = 0; i < 3; i++) await Promise.all([search({ q }, admin), ask('passages')({ q }, admin)]); // warm the cache

  console.log(
    `\n${DOCS} documents, 50 data sources; ${REQUESTS} sequential requests per case, search limit 20, passages limit 10 (ms); load average ${loadAverage()}`,
  );
  for (const [kind, q] of Object.entries(process.env.BENCH_ONLY_MIX ? {} : queries)) {
    console.log(`\n${kind}: q=${JSON.stringify(q)}`);
    console.log('  case                                   p50     p95     p99   hits');
    const cases: Array<[string, Record<string, string>, Record<string, string>, Endpoint]> = [
      ['all 50 data sources', { q }, admin, 'search'],
      [`pathPrefix ${PATH_PREFIX}`, { q, pathPrefix: PATH_PREFIX }, admin, 'search'],
      ['dataSourceId (1 of 50)', { q, dataSourceId: sourceId(7) }, admin, 'search'],
      ['user reading 1 of 50', { q }, member, 'search'],
      ['passages, all 50 data sources', { q }, admin, 'passages'],
      ['passages, dataSourceId (1 of 50)', { q, dataSourceId: sourceId(7) }, admin, 'passages'],
      ['passages, user reading 1 of 50', { q }, member, 'passages'],
    ];
    for (const [name, query, auth, endpoint] of cases) {
      const { times, hits } = await sequential(ask(endpoint), query, auth);
      console.log(`  ${name.padEnd(36)} ${fmt(times)}   ${hits}`);
    }
  }
  const word = queries['word in ~3 %'];
  if (!process.env.BENCH_ONLY_MIX) {
    const c = await concurrent(search, { q: word }, admin);
    console.log(
      `\n${CONCURRENCY} concurrent searchers, q=${JSON.stringify(word)}, all 50 data sources: ${c.rate.toFixed(0)} req/s, p50/p95/p99 ${fmt(c.times)} ms; load average ${loadAverage()}`,
    );
  }
  const mix = await mixedQueries(search, queries, admin, member);
  console.log(`\nthe mix's queries: ${mix.map((item) => `${item.kind} ${JSON.stringify(item.query)}`).join('; ')}`);
  const m = await concurrentMix(search, mix);
  console.log(
    `\n${CONCURRENCY} concurrent searchers sending the mix in turn: ${m.rate.toFixed(0)} req/s, p50/p95/p99 ${fmt(m.times)} ms; load average ${loadAverage()}`,
  );
  console.log(
    '  kind                                   p50     p95     p99   CPU per query alone: machine / API / client',
  );
  for (const item of mix) {
    const cpu = await cpuPerQuery(search, item, api);
    console.log(
      `  ${item.kind.padEnd(36)} ${fmt(m.byKind.get(item.kind)!)}   ${cpu.machine.toFixed(1)} / ${cpu.api.toFixed(1)} / ${cpu.client.toFixed(1)} ms`,
    );
  }

  await api.stop();
  await db.stop();
  process.exit(0);
}

async function seedOnce(sql: Client): Promise<void> {
  await sql.query(`CREATE TABLE IF NOT EXISTS public.bench_seed (docs int NOT NULL, seconds jsonb NOT NULL)`);
  const seeded = (await sql.query(`SELECT docs, seconds FROM public.bench_seed`)).rows[0];
  if (seeded && (await sql.query(`SELECT 1 FROM connector.documents WHERE "openingChunks" IS NULL LIMIT 1`)).rowCount)
    throw new Error('the kept corpus was seeded before passages: drop the database and start again');
  if (seeded) return void console.log(`corpus reused: ${seeded.docs} documents, seeded in ${describe(seeded.seconds)}`);
  if ((await sql.query('SELECT 1 FROM connector.data_sources LIMIT 1')).rowCount)
    throw new Error('a seeding was interrupted: drop the database and start again');
  const seconds = await seedCorpus(sql, DOCS);
  await sql.query(`INSERT INTO public.bench_seed VALUES ($1, $2)`, [DOCS, seconds]);
  console.log(`corpus seeded: ${DOCS} documents in ${describe(seconds)}`);
}

async function printSizes(sql: Client): Promise<void> {
  const { rows } = await sql.query(`
    SELECT c.relname AS name, c.relkind AS kind, pg_total_relation_size(c.oid) AS total, pg_relation_size(c.oid) AS main,
      (SELECT count(*) FROM connector.document_chunks) AS chunks
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'connector' AND (c.relname IN ('documents', 'document_chunks') OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN ('connector.documents'::regclass, 'connector.document_chunks'::regclass)))
    ORDER BY c.relkind DESC, c.relname`);
  const mb = (n: string) => `${(Number(n) / 1e6).toFixed(0)} MB`;
  console.log(
    `${rows[0].chunks} chunks; database ${mb((await sql.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n)}`,
  );
  for (const r of rows)
    console.log(`  ${r.name.padEnd(32)} ${r.kind === 'r' ? `${mb(r.total)} (heap ${mb(r.main)})` : mb(r.main)}`);
}

/** Words and a phrase by their document frequency, measured on 5 of the 50 data sources. */
async function chooseQueries(sql: Client): Promise<Record<string, string>> {
  await sql.query('SET enable_seqscan = off');
  const sample = `"dataSourceId" IN ('${[0, 1, 2, 3, 4].map(sourceId).join("', '")}')`;
  const total = Number((await sql.query(`SELECT count(*) AS n FROM connector.documents WHERE ${sample}`)).rows[0].n);
  const df = async (q: string) =>
    Number(
      (
        await sql.query(
          `SELECT count(*) AS n FROM connector.documents WHERE ${sample} AND search @@ websearch_to_tsquery('english', $1)`,
          [q],
        )
      ).rows[0].n,
    ) / total;
  const words = vocabulary().filter((_, i) => i < 300 || i % 997 === 0);
  const freq: Array<[string, number]> = [];
  for (const w of words)
    if ((await sql.query(`SELECT numnode(websearch_to_tsquery('english', $1)) AS n`, [w])).rows[0].n === 1)
      freq.push([w, await df(w)]);
  const near = (target: number, list = freq) =>
    [...list].sort(
      (a, b) => Math.abs(Math.log(a[1] + 1e-6) - Math.log(target)) - Math.abs(Math.log(b[1] + 1e-6) - Math.log(target)),
    );
  const three = near(0.85)
    .slice(0, 3)
    .map(([w]) => w)
    .join(' ');
  const phrases: Array<[string, number]> = [];
  for (const p of PHRASE_CANDIDATES) phrases.push([`"${p}"`, await df(`"${p}"`)]);
  const chosen = {
    'very common word (~95 %)': near(0.95)[0][0],
    'one word (~30 %)': near(
      0.3,
      freq.filter(([w]) => vocabulary().indexOf(w) < 300),
    )[0][0],
    'three words': three,
    'phrase (~3 %)': near(0.03, phrases)[0][0],
    'word in ~3 %': near(0.03)[0][0],
    'rare word (~0.05 %)': near(0.0005)[0][0],
  };
  for (const [kind, q] of Object.entries(chosen))
    console.log(`  ${kind.padEnd(26)} ${q.padEnd(34)} in ${((await df(q)) * 100).toFixed(2)} % of documents`);
  await sql.query('RESET enable_seqscan');
  return chosen;
}

async function sequential(search: Search, query: Record<string, string>, auth: Record<string, string>) {
  const times: number[] = [];
  const until = performance.now() + CASE_MS;
  let hits = 0;
  for (let i = 0; i < REQUESTS && performance.now() < until; i++) {
    const started = performance.now();
    const body = await search(query, auth);
    times.push(performance.now() - started);
    hits = found(body);
  }
  return { times, hits };
}

async function concurrent(search: Search, query: Record<string, string>, auth: Record<string, string>) {
  const times: number[] = [];
  const started = performance.now();
  const until = started + CONCURRENT_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await search(query, auth);
        times.push(performance.now() - t);
      }
    }),
  );
  return { times, rate: times.length / ((performance.now() - started) / 1000) };
}

interface MixedQuery {
  kind: string;
  query: Record<string, string>;
  auth: Record<string, string>;
}

/** The query kinds of the mixed case; the deep page's cursor is followed from the first page once. */
async function mixedQueries(
  search: Search,
  queries: Record<string, string>,
  admin: Record<string, string>,
  member: Record<string, string>,
): Promise<MixedQuery[]> {
  const common = queries['one word (~30 %)'];
  const rare = queries['word in ~3 %'];
  const words = queries['three words'].split(' ');
  let deep: Record<string, string> = { q: common };
  for (let page = 1; page < 5; page++) {
    const { nextCursor } = (await search(deep, admin)) as { nextCursor: string | null };
    if (!nextCursor) break;
    deep = { q: common, cursor: nextCursor };
  }
  return [
    { kind: 'one word (~30 %)', query: { q: common }, auth: admin },
    { kind: 'many terms (6 words)', query: { q: [...words, common, rare, 'wall'].join(' ') }, auth: admin },
    { kind: 'OR', query: { q: `${rare} OR ${queries['rare word (~0.05 %)']}` }, auth: admin },
    { kind: 'negation', query: { q: `${common} -${rare}` }, auth: admin },
    { kind: 'phrase', query: { q: queries['phrase (~3 %)'] }, auth: admin },
    { kind: `pathPrefix ${PATH_PREFIX}`, query: { q: common, pathPrefix: PATH_PREFIX }, auth: admin },
    { kind: 'dataSourceId (1 of 50)', query: { q: common, dataSourceId: sourceId(7) }, auth: admin },
    { kind: 'page 5 (cursor)', query: deep, auth: admin },
    { kind: 'user reading 1 of 50', query: { q: common }, auth: member },
  ];
}

async function concurrentMix(search: Search, mix: MixedQuery[]) {
  const times: number[] = [];
  const byKind = new Map(mix.map((item) => [item.kind, [] as number[]]));
  const started = performance.now();
  const until = started + CONCURRENT_MS;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const item = mix[next++ % mix.length];
        const t = performance.now();
        await search(item.query, item.auth);
        const took = performance.now() - t;
        times.push(took);
        byKind.get(item.kind)!.push(took);
      }
    }),
  );
  return { times, byKind, rate: times.length / ((performance.now() - started) / 1000) };
}

/**
 * CPU per query of one kind sent alone, one after another (ms): the machine's in all (API, PostgreSQL, this
 * client), the API process's, and this process's (the client).
 */
async function cpuPerQuery(
  search: Search,
  item: MixedQuery,
  api: Service,
  requests = 100,
): Promise<{ machine: number; api: number; client: number }> {
  const machineBefore = machineBusyMs();
  const apiBefore = api.cpuMs();
  const clientBefore = process.cpuUsage();
  for (let i = 0; i < requests; i++) await search(item.query, item.auth);
  const client = process.cpuUsage(clientBefore);
  return {
    machine: (machineBusyMs() - machineBefore) / requests,
    api: (api.cpuMs() - apiBefore) / requests,
    client: (client.user + client.system) / 1000 / requests,
  };
}

/** CPU time every core of the machine has spent busy (ms; /proc/stat, USER_HZ 100). */
function machineBusyMs(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/);
  return fields.slice(0, 8).reduce((sum, v, i) => (i === 3 || i === 4 ? sum : sum + Number(v)), 0) * 10;
}

function fmt(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
  return [0.5, 0.95, 0.99].map((p) => at(p).toFixed(1).padStart(7)).join(' ');
}

const describe = (seconds: Record<string, number>) =>
  `${Object.values(seconds)
    .reduce((a, b) => a + b, 0)
    .toFixed(0)} s (${Object.entries(seconds)
    .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
    .join(', ')})`;
const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

/** The searchers' connections: kept open, one per searcher, as a client of the API would keep them. */
const searchers = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** A GET and its whole answer, through node:http (fetch's streams cost this process more than the request). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: searchers, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

main().catch(failBench);
