/**
 * `npm run bench:ingest`: a full sync of 5,000 files (2–200 KB, text and PDF) from the simulator, against
 * two baselines measured in the same run (bare loops in ingest-baselines.ts: one lists and downloads the
 * same files with the same concurrency, the other also extracts their text with the product's extractor in
 * one thread per core; neither keeps anything); then incremental syncs with no change and with 1% changed, the
 * worker's peak RSS (also across one 500 MB file), and search latency over the ingested corpus. Where the
 * server has autovacuum off, the no-change sync and search are timed once more after what it would have done.
 * A sync's time is its run's (list, download, store, keep the hierarchy); text extraction runs on its own
 * queue after that, and "text searchable after" is the time until none of the data source's documents is
 * Pending.
 * Each measurement waits until the previous sync's text is searchable, so extraction never overlaps it.
 * `BENCH_FILES=200 BENCH_BIG_FILE_MB=5 npm run bench:ingest` is a quick check that it works;
 * `BENCH_FULL_ONLY=1` stops after the full sync; `BENCH_PROFILE_DIR=dir` writes the worker's CPU profile there;
 * `BENCH_WORKER_NODE_FLAGS=''` starts the worker without the deployed worker's `--single-threaded-gc` (or with other flags).
 */
import axios, { AxiosInstance } from 'axios';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { Test } from '@nestjs/testing';
import { configureHttpApp } from '@app/http';
import { killChild, startChildApp, testCaller, testEnv } from '@app/testing';
import { AppModule } from '../apps/connector-service/src/app.module';
import { MAIN_HEAP_FLAG, WORKER_GC_FLAG } from '../apps/connector-service/src/heap-cap';
import { SYNC_FAIR_SHARE, syncSlots } from '../apps/connector-service/src/sync/sync.jobs';
import { benchDatabase, failBench } from './bench-database';
import { nowUs, printCpuSplit, ProfileWindow } from './cpu-split';
import {
  countStatements,
  databaseCpuSplit,
  DatabaseStep,
  rowVersions,
  StatementTime,
  topStatements,
} from './database-cpu-split';
import { processTreeCpuMs, ThreadCpu, watchThreadCpu } from './thread-cpu';
import { CONCURRENCY, listAndDownload, listDownloadAndExtract } from './ingest-baselines';

type Http = () => ReturnType<typeof request>;

const FILES = Number(process.env.BENCH_FILES ?? 5000);
const BIG_FILE_BYTES = Number(process.env.BENCH_BIG_FILE_MB ?? 500) * 1024 * 1024;
/**
 * The worker's slots, so that a lone tenant's sync runs CONCURRENCY steps at once, as the baselines download:
 * a tenant alone holds aloneShare of the slots not reserved for a newcomer (one). SYNC_SLOTS = CONCURRENCY
 * gave the run 3 steps against the baselines' 8 downloads.
 */
const SYNC_SLOTS = Number(
  process.env.BENCH_SYNC_SLOTS ?? Math.ceil(CONCURRENCY / SYNC_FAIR_SHARE.aloneShare) + syncSlots(2).reserved,
);

async function main(): Promise<void> {
  const db = await benchDatabase({ keep: Boolean(process.env.BENCH_KEEP_DB) });
  const simPort = await freePort();
  const sim = await startChildApp('apps/document-system-simulator/test/support/run-simulator.ts', {
    PORT: simPort,
    PUBLIC_BASE_URL: `http://127.0.0.1:${simPort}`,
    LOG_LEVEL: 'silent',
  });
  const simUrl = `http://127.0.0.1:${simPort}`;
  const admin = axios.create({ baseURL: `${simUrl}/admin` });
  const root = (await admin.get('/folders', { params: { path: '/Structural' } })).data.id;
  const folder = (await admin.post('/folders', { parentId: root, name: 'bench' })).data.id;
  await admin.post('/bulk-files', {
    parentId: folder,
    count: FILES,
    format: process.env.BENCH_FORMAT ?? 'mixed',
    minSize: 2 * 1024,
    maxSize: 200 * 1024,
    perFolder: 250,
  });
  const files: Array<{ id: string; size: number }> = (await admin.get('/files', { params: { under: folder } })).data;
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  console.log(`corpus: ${files.length} files, ${(totalBytes / 1e6).toFixed(1)} MB`);

  const baselineMs = await listAndDownload(simUrl, folder);
  const extractBaseline = await listDownloadAndExtract(simUrl, folder);
  console.log(
    `baselines: list + download ${(baselineMs / 1000).toFixed(1)} s; + extract ${(extractBaseline.ms / 1000).toFixed(1)} s, ${(extractBaseline.cpuMs / 1000).toFixed(1)} s of CPU (${JSON.stringify(extractBaseline.outcomes)})`,
  );
  const apiPort = await freePort();
  const publicBaseUrl = `http://127.0.0.1:${apiPort}`;
  const env = testEnv({
    DATABASE_URL: db.url,
    BLOB_DIR: join(tmpdir(), `bench-blobs-${randomBytes(4).toString('hex')}`),
    ALLOW_INSECURE_URLS: true,
    LOG_LEVEL: 'info',
    SYNC_SLOTS,
    EXTRACTION_NICE: process.env.EXTRACTION_NICE ?? 10,
    PORT: apiPort,
    PUBLIC_BASE_URL: publicBaseUrl,
  });
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot({ role: 'api', env: { ...env, LOG_LEVEL: 'silent' } })],
  }).compile();
  const api = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  configureHttpApp(api, { title: 'bench', description: 'bench' });
  await api.listen(apiPort, '127.0.0.1');
  // The worker is the production build (`npm run build`), as it runs in a deployment.
  const worker = await startBuiltWorker(env);
  const peak = watchPeakRss(worker);
  const caller = await testCaller({ roles: ['admin'] });
  const http = () => request(api.getHttpServer());
  const projectId = randomUUID();
  const connectionId = await connectThroughOAuth(http, caller, admin, simUrl, publicBaseUrl);
  const credentialId = (
    await http().post('/v1/credentials').set(caller.auth).send({
      name: 'Sim',
      type: 'DocumentSystem',
      instanceUrl: simUrl,
      username: 'alice',
      password: 'alice-password',
      scope: 'Tenant',
    })
  ).body.id;
  const ds = (
    await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Bench', credentialId, connectionId })
  ).body;
  if (!ds.id) throw new Error(`data source not created: ${JSON.stringify(ds)}`);
  await http()
    .put(`/v1/data-sources/${ds.id}/selection`)
    .set(caller.auth)
    .send({ include: [folder], exclude: [] });

  const statementsCounted = await countStatements(db.url);
  const versionsBefore = await rowVersions(db.url);
  const threads = watchThreadCpu(worker.pid!);
  const fullWindow: ProfileWindow = { fromUs: nowUs(), toUs: 0 };
  const cpuBeforeFull = cpuMs(worker);
  const databaseCpuBeforeFull = databaseCpuMs();
  const full = await timedSync(http, caller, ds.id, !process.env.BENCH_FULL_ONLY);
  const fullCpuMs = cpuMs(worker) - cpuBeforeFull;
  const fullDatabaseCpuMs = databaseCpuMs() - databaseCpuBeforeFull;
  fullWindow.toUs = nowUs();
  const fullThreadCpu = threads.now();
  threads.stop();
  const statements = statementsCounted ? await topStatements(db.url) : [];
  // Measured while nothing else runs: each step done again over what the full sync stored.
  const databaseSteps = await databaseCpuSplit(db.url, versionsBefore, await rowVersions(db.url));
  const rssAfterFull = peak.value();
  console.log(
    `full sync ended after ${(full.ms / 1000).toFixed(1)} s (${(full.ms / baselineMs).toFixed(2)}× list + download)${process.env.BENCH_FULL_ONLY ? '' : `; text searchable after ${(full.searchableMs / 1000).toFixed(1)} s (${(full.searchableMs / extractBaseline.ms).toFixed(2)}× list + download + extract)`}`,
  );
  if (process.env.BENCH_FULL_ONLY) return void (await stop());
  const autovacuum = await autovacuumIsOn(db.url);
  const none = await timedSync(http, caller, ds.id);
  // Extraction rewrote every document's row once: the first sync after it reads past the dead versions and
  // their index entries (and marks them so). Autovacuum clears them in the background; where the server has
  // it off, do what it would have done and time a no-change sync once more. Both figures are printed.
  const noneVacuumed = autovacuum ? null : (await vacuumAnalyze(db.url), await timedSync(http, caller, ds.id));
  for (const file of files.slice(0, Math.ceil(files.length / 100)))
    await admin.patch(`/files/${file.id}`, { text: `changed ${file.id} ${'x'.repeat(2048)}` });
  const onePercent = await timedSync(http, caller, ds.id);
  const search = await searchLatencies(http, caller, projectId);
  // The syncs left row versions behind again. Autovacuum would clean them up; where the server has it off,
  // do what it would do, and print both figures.
  const vacuumed = autovacuum ? null : (await vacuumAnalyze(db.url), await searchLatencies(http, caller, projectId));

  const big = await admin.post('/files', {
    parentId: folder,
    name: 'huge-model-export.txt',
    generate: { format: 'text', size: BIG_FILE_BYTES, seed: 9 },
  });
  const bigSync = await timedSync(http, caller, ds.id);
  const rssAfterBig = peak.value();

  const fullSeconds = full.ms / 1000;
  console.log(
    `\nfull sync:        ${full.run.counts.added} files in ${fullSeconds.toFixed(1)} s: ${(files.length / fullSeconds).toFixed(0)} files/s, ${(totalBytes / 1e6 / fullSeconds).toFixed(1)} MB/s (status ${full.run.status})`,
  );
  console.log(
    `baseline:         ${(baselineMs / 1000).toFixed(1)} s: ${(files.length / (baselineMs / 1000)).toFixed(0)} files/s, ${(totalBytes / 1e6 / (baselineMs / 1000)).toFixed(1)} MB/s (list + download, ${CONCURRENCY} at a time, nothing kept)`,
  );
  console.log(
    `extract baseline: ${(extractBaseline.ms / 1000).toFixed(1)} s: ${(files.length / (extractBaseline.ms / 1000)).toFixed(0)} files/s (list + download, ${CONCURRENCY} at a time, + extract in ${extractBaseline.processes} processes, nothing kept)`,
  );
  console.log(`ratio full/baseline time: ${(full.ms / baselineMs).toFixed(2)} (target ≤ 1.5)`);
  console.log(
    `text searchable after ${(full.searchableMs / 1000).toFixed(1)} s (from the start of the full sync until no document is Pending extraction; ${(full.searchableMs / baselineMs).toFixed(2)}× list + download)`,
  );
  console.log(
    `ratio searchable/extract baseline time: ${(full.searchableMs / extractBaseline.ms).toFixed(2)} (target ≤ 1.3)`,
  );
  console.log(
    `CPU until searchable: worker ${(fullCpuMs / 1000).toFixed(1)} s (all threads, its extraction processes included); PostgreSQL ${Number.isNaN(fullDatabaseCpuMs) ? 'not on this machine' : `${(fullDatabaseCpuMs / 1000).toFixed(1)} s`}; extract baseline ${(extractBaseline.cpuMs / 1000).toFixed(1)} s`,
  );
  printStepTable(fullThreadCpu, fullDatabaseCpuMs, databaseSteps, extractBaseline.cpuMs);
  printStatements(statements);
  console.log(
    `incremental, no change: ${(none.ms / 1000).toFixed(2)} s = ${((none.ms / full.ms) * 100).toFixed(1)}% of full (target < 5%); counts ${JSON.stringify(none.run.counts)}`,
  );
  if (noneVacuumed)
    console.log(
      `incremental, no change, after VACUUM ANALYZE (what autovacuum would have done; autovacuum is off on this server): ${(noneVacuumed.ms / 1000).toFixed(2)} s = ${((noneVacuumed.ms / full.ms) * 100).toFixed(1)}% of full`,
    );
  console.log(
    `incremental, 1% changed: ${(onePercent.ms / 1000).toFixed(2)} s = ${((onePercent.ms / full.ms) * 100).toFixed(1)}% of full (target < 10%); updated ${onePercent.run.counts.updated}; text searchable after ${(onePercent.searchableMs / 1000).toFixed(2)} s`,
  );
  console.log(
    `worker peak RSS: ${(rssAfterFull.own / 1e6).toFixed(0)} MB after the full sync; ${(rssAfterBig.own / 1e6).toFixed(0)} MB after streaming a ${(big.data.size / 1e6).toFixed(0)} MB file in ${(bigSync.ms / 1000).toFixed(1)} s (target < 400 MB); with its extraction processes (PSS) ${(rssAfterFull.withChildren / 1e6).toFixed(0)} and ${(rssAfterBig.withChildren / 1e6).toFixed(0)} MB`,
  );
  console.log(
    `search over ${files.length} documents: p50 ${search.p50.toFixed(1)} ms, p95 ${search.p95.toFixed(1)} ms (target p95 < 50 ms)${vacuumed ? '; autovacuum is off on this server' : ''}`,
  );
  if (vacuumed)
    console.log(
      `search after VACUUM ANALYZE (what autovacuum would have done): p50 ${vacuumed.p50.toFixed(1)} ms, p95 ${vacuumed.p95.toFixed(1)} ms`,
    );

  await stop();

  async function stop(): Promise<never> {
    peak.stop();
    await killChild(worker, 'SIGTERM');
    const profile = process.env.BENCH_PROFILE_DIR && mainThreadProfile(process.env.BENCH_PROFILE_DIR, worker.pid!);
    if (profile && fullWindow.toUs)
      printCpuSplit("The worker's main thread until searchable, by part", profile, fullWindow, {
        count: files.length,
        label: 'file',
      });
    await api.close();
    await killChild(sim, 'SIGTERM');
    await rm(String(env.BLOB_DIR), { recursive: true, force: true });
    await db.stop();
    process.exit(0);
  }
}

/** The OAuth connection a user makes: provider registered, authorized at the simulator (auto-approve), code exchanged. */
async function connectThroughOAuth(
  http: Http,
  caller: { auth: Record<string, string> },
  admin: AxiosInstance,
  simUrl: string,
  publicBaseUrl: string,
): Promise<string> {
  await admin.post('/oauth/clients', {
    clientId: 'bench',
    clientSecrets: ['bench-secret'],
    redirectUris: [`${publicBaseUrl}/v2/OAuth/callback`],
  });
  await admin.put('/oauth/settings', { autoApproveUser: 'alice' });
  const provider = (
    await http()
      .post('/v2/OAuth/providers')
      .set(caller.auth)
      .send({
        name: 'Simulator',
        provider: 'GenericOAuth',
        authenticationType: 'StaticUserOauth',
        clientId: 'bench',
        clientSecret: 'bench-secret',
        authorizationEndpoint: `${simUrl}/oauth/authorize`,
        tokenEndpoint: `${simUrl}/oauth/token`,
        revokeEndpoint: '',
        supportedScopes: ['openid', 'offline_access'],
      })
  ).body;
  const started = await http().post('/v2/OAuth/authorize').set(caller.auth).send({ providerId: provider.id });
  // The callback needs the cookie the authorization set in the browser that began it.
  const cookie = [started.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0] ?? '';
  const location = (await fetch(started.body.authorizationUrl, { redirect: 'manual' })).headers.get('location');
  const query = Object.fromEntries(new URL(location!).searchParams);
  const connection = (
    await http().get('/v2/OAuth/callback').query(query).set('Accept', 'application/json').set('Cookie', cookie)
  ).body;
  if (connection.status !== 'Active') throw new Error(`OAuth connection failed: ${JSON.stringify(connection)}`);
  return connection.id;
}

/** `node --max-old-space-size=512 dist/.../main.js` with PROCESS_ROLE=worker, as deployed; resolves once it has started. */
async function startBuiltWorker(env: Record<string, unknown>): Promise<ChildProcess> {
  const main = join(__dirname, '../dist/apps/connector-service/apps/connector-service/src/main.js');
  if (!existsSync(main)) throw new Error('Run `npm run build` first: the benchmark measures the built worker');
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  // The worker's flags as deployed; BENCH_WORKER_NODE_FLAGS='' (or others) to measure against them.
  const flags = (process.env.BENCH_WORKER_NODE_FLAGS ?? WORKER_GC_FLAG).split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...profile, ...flags, MAIN_HEAP_FLAG, main], {
    env: {
      ...process.env,
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
      PROCESS_ROLE: 'worker',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL')); // should the bench fail before it stops the worker
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (out.length < 100_000) out += chunk.toString();
      if (out.includes('Queue workers started')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  child.stdout!.resume();
  return child;
}

/**
 * A sync's time is until its run ends (files stored, hierarchy kept); `searchableMs` is until no document
 * of the data source is still Pending text extraction (which runs on its own queue after the run).
 */
async function timedSync(
  http: Http,
  caller: { auth: Record<string, string> },
  dataSourceId: string,
  waitSearchable = true,
) {
  const started = Date.now();
  const { syncRunId } = (await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth)).body;
  let run;
  for (;;) {
    run = (await http().get(`/v1/sync-runs/${syncRunId}`).set(caller.auth)).body;
    if (!['Queued', 'Running'].includes(run.status)) break;
    // Seldom: its end is the run's finishedAt, not when a look saw it. Every 25 ms, the looks (the API's auth, a
    // statement) took a quarter of a core from the two the sync was using.
    await new Promise((r) => setTimeout(r, 250));
  }
  const ms = Date.parse(run.finishedAt) - started;
  while (
    waitSearchable &&
    (await http().get(`/v1/data-sources/${dataSourceId}`).set(caller.auth)).body.pendingExtractions > 0
  )
    // Each look counts the data source's documents by status: every 100 ms, it cost PostgreSQL 19 s of 150.
    await new Promise((r) => setTimeout(r, 1000));
  return { run, ms, searchableMs: Date.now() - started };
}

async function searchLatencies(http: Http, caller: { auth: Record<string, string> }, projectId: string) {
  const words = [
    'concrete beam',
    'rebar',
    'sprinkler valve',
    'gen-00042',
    'membrane insulation',
    'parapet',
    'duct damper',
    'Generated sheet',
    'curtainwall',
    'footing slab',
  ];
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    await http()
      .get(`/v1/projects/${projectId}/search`)
      .query({ q: words[i % words.length], limit: 20 })
      .set(caller.auth);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[99], p95: times[189] };
}

/** CPU until searchable by step: the worker's threads by kind, and PostgreSQL's by step (bench/database-cpu-split.ts). */
function printStepTable(worker: ThreadCpu, databaseMs: number, steps: DatabaseStep[], baselineMs: number): void {
  const line = (label: string, ms: number) =>
    console.log(
      `  ${label.padEnd(66)} ${(ms / 1000).toFixed(1).padStart(7)} s ${((ms / baselineMs) * 100).toFixed(1).padStart(6)} %`,
    );
  console.log(`\nCPU until searchable, by step (share of the extract baseline's ${(baselineMs / 1000).toFixed(1)} s):`);
  line('worker: main thread (event loop; BENCH_PROFILE_DIR splits it)', worker.mainMs);
  line('worker: its extraction and answer-parser processes', worker.extractionMs);
  line('worker: other threads (GC helpers, libuv pool), ended threads', worker.restMs);
  if (Number.isNaN(databaseMs)) return void console.log('  PostgreSQL: not on this machine');
  line('PostgreSQL', databaseMs);
  for (const { step, ms } of steps) line(`  ${step}`, ms);
  line(
    '  the rest (statements, heap and TOAST writes, WAL, commits, vacuum)',
    databaseMs - steps.reduce((n, s) => n + s.ms, 0),
  );
  line('total', worker.mainMs + worker.extractionMs + worker.restMs + databaseMs);
}

/** The statements that took PostgreSQL longest until searchable, where pg_stat_statements is loaded. */
function printStatements(statements: StatementTime[]): void {
  if (!statements.length)
    return void console.log('  (statements by time: load pg_stat_statements in shared_preload_libraries to see them)');
  console.log('\nStatements by time in PostgreSQL until searchable (pg_stat_statements; wall time in the backend):');
  for (const { statement, calls, ms } of statements)
    console.log(
      `  ${(ms / 1000).toFixed(1).padStart(7)} s ${String(calls).padStart(7)} calls  ${statement.slice(0, 150)}`,
    );
}

/** The profile of the worker's main thread (tid 0 in the file's name; its threads write their own). */
function mainThreadProfile(dir: string, pid: number): string | undefined {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`));
  return file && join(dir, file);
}

/** User and system CPU time of a process, all its threads and its children (the extraction processes). */
function cpuMs(child: ChildProcess): number {
  return processTreeCpuMs(child.pid!);
}

/**
 * CPU time of the PostgreSQL server on this machine: its postmaster's own and its ended backends' (counted
 * when reaped), and its live processes'. NaN when no PostgreSQL process is visible here.
 */
function databaseCpuMs(): number {
  let ticks = 0;
  let seen = false;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const [comm, rest] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ');
      if (!comm.endsWith('(postgres')) continue;
      const fields = rest.split(' ');
      // utime and stime, and the reaped children's (the postmaster's ended backends)
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      seen = true;
    } catch {
      /* ended meanwhile */
    }
  }
  return seen ? (ticks * 1000) / 100 : NaN;
}

/**
 * The worker's peak memory: its own RSS (the kernel's high-water mark), and with its extraction processes
 * (the sum of their proportional set sizes, which share the Node binary's pages fairly, sampled).
 */
function watchPeakRss(child: ChildProcess) {
  const peak = { own: 0, withChildren: 0 };
  const read = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peak.own = Math.max(peak.own, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024);
      const tree = [child.pid!, ...childrenOf(child.pid!)].reduce((sum, pid) => sum + pssBytes(pid), 0);
      peak.withChildren = Math.max(peak.withChildren, tree);
    } catch {
      /* exited */
    }
  };
  const timer = setInterval(read, 200);
  return { value: () => (read(), { ...peak }), stop: () => clearInterval(timer) };
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[1]) === pid) children.push(Number(name));
    } catch {
      /* ended meanwhile */
    }
  }
  return children;
}

function pssBytes(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function autovacuumIsOn(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const [{ autovacuum }] = (await client.query('SHOW autovacuum')).rows;
  await client.end();
  return autovacuum === 'on';
}

async function vacuumAnalyze(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query('VACUUM ANALYZE connector.documents, connector.document_chunks');
  await client.end();
}

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) =>
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    }),
  );
}

main().catch(failBench);
