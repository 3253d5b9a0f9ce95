/**
 * `npm run bench:approvals`: N approvals through the queue against a local receiver that answers 200
 * and calls back Approved at once. Measures end-to-end approvals/s, request → webhook received and
 * callback → decision event latencies, and, in the same run, a baseline doing the same work with bare
 * Bull jobs and bare HTTP posts and no database. Prints the ratio.
 */
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'node:http';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ModuleKind, ScriptTarget, transpileModule } from 'typescript';
import { Client } from 'pg';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { newestProfile, nowUs, printCpuSplit } from './cpu-split';
import { countStatements, statementsSoFar } from './database-cpu-split';
import { freePort, ROOT, Service, spawnService, Syscalls, waitFor } from './built-service';
const { startEmbeddedPostgres } = require('../scripts/embedded-postgres');

const N = Number(process.env.BENCH_N ?? 2000);
/** Approvals run through each side before the measured N, as a service that has been up a while has seen. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

interface Timings {
  requested: Map<string, number>;
  webhook: Map<string, number>;
  callback: Map<string, number>;
  /** When the service published the decision event (the Bull job's timestamp), on this process's clock. */
  published: Map<string, number>;
  /** When the runtime's consumer took the event: adds the consumer's own queueing. */
  decided: Map<string, number>;
  serviceCpuMs?: number;
  /** The service process's read and write system calls (sockets mostly: HTTP, Redis, PostgreSQL). */
  serviceSyscalls?: Syscalls;
  /** CPU of every process on the machine (service, database, Redis, receiver, runtime) during the run. */
  machineCpuMs?: number;
  /** CPU of PostgreSQL's and Redis's processes over the measured approvals. */
  serversCpuMs?: { postgres: number; redis: number };
  /** Statements PostgreSQL ran over the measured approvals, where it loads pg_stat_statements. */
  statements?: number;
  /** The warm-up's own figures: the first approvals a freshly started process takes. */
  cold?: { count: number; perSecond: number; callbackP99Ms: number };
}
const timings = (): Timings => ({
  requested: new Map(),
  webhook: new Map(),
  callback: new Map(),
  published: new Map(),
  decided: new Map(),
});

/** Records a decision event: when it was published (epoch ms, same machine) and when it was consumed. */
function decided(t: Timings, executionId: string, publishedAt: number): void {
  t.published.set(executionId, publishedAt - performance.timeOrigin);
  t.decided.set(executionId, performance.now());
}

async function main(): Promise<void> {
  const db = await database();
  const only = process.env.BENCH_ONLY; // 'system' or 'baseline', for profiling one side
  const system = only === 'baseline' ? null : await runSystem(db.url);
  const baseline = only === 'system' ? null : await runBaseline();
  await db.stop();
  if (system) report('approval-service (queue → DB → webhook → callback → outbox → decision)', system);
  if (baseline) report('baseline (bare Bull jobs and HTTP posts, no database)', baseline);
  if (!system || !baseline) process.exit(0);
  const ratio = throughput(system, N) / throughput(baseline, N);
  console.log(`\nthroughput ratio system / baseline: ${ratio.toFixed(2)} (target ≥ 0.50)`);
  console.log(
    `targets: ≥ 300 approvals/s end to end: ${throughput(system, N) >= 300 ? 'met' : 'NOT met'}; p99 callback → decision event < 50 ms: ${callbackP99(system) < 50 ? 'met' : 'NOT met'}`,
  );
  process.exit(0);
}

async function runSystem(databaseUrl: string): Promise<Timings> {
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const counting = await countStatements(databaseUrl);
  // One process with every role, as `npm start` runs it. (API and worker in two processes measured
  // no more throughput and a slower callback p99 here: more busy processes on two cores.)
  const service = await spawnService(
    join(ROOT, 'dist/apps/approval-service/apps/approval-service/src/main.js'),
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: `bench:${randomBytes(32).toString('base64')}`,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    { port },
  );
  return runThrough(service, prefix, counting ? () => statementsSoFar(databaseUrl) : undefined);
}

/**
 * The same work with bare Bull jobs and HTTP posts and no database, in its own process as the service
 * runs: the same runtime client, request jobs, webhook body, callback and decision event.
 */
async function runBaseline(): Promise<Timings> {
  const prefix = `bench-base-${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const service = await spawnService(
    compiledBaseline(),
    { REDIS_URL, QUEUE_PREFIX: prefix, PORT: String(port) },
    { port },
  );
  return runThrough(service, prefix);
}

/**
 * N approvals through a running service half: the reference runtime client enqueues the requests and
 * takes the decisions; a receiver answers each webhook 200 and calls back Approved at once.
 */
async function runThrough(service: Service, prefix: string, statements?: () => Promise<number>): Promise<Timings> {
  let t = timings();
  const receiver = await listen(async (_req, body) => {
    const payload = JSON.parse(body);
    t.webhook.set(payload.executionId, performance.now());
    t.callback.set(payload.executionId, performance.now());
    await post(payload.callbackUrl, {
      callbackId: payload.callbackId,
      callbackToken: payload.callbackToken,
      status: 'Approved',
    });
  });
  const runtime = new ApprovalRuntimeClient(REDIS_URL, {
    prefix,
    onDecision: (e, published) => decided(t, e.executionId, published.at),
  });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const enqueue = (executionId: string, i: number) =>
    runtime.request({
      tenantId: 'bench',
      executionId,
      stepId: 'approve',
      agentName: 'Bench agent',
      webhook: { url, authentication: { type: 'None' }, timeoutSeconds: 30, maxRetryAttempts: 3, message: 'ok?' },
      stepInput: { i },
      previousResults: [],
    });
  await measure(t, WARMUP, 'warmup-', enqueue);
  const cold = { count: WARMUP, perSecond: throughput(t, WARMUP), callbackP99Ms: callbackP99(t) };
  t = timings();
  t.cold = cold;
  const cpuAtStart = service.cpuMs();
  const syscallsAtStart = service.syscalls();
  const statementsAtStart = await statements?.();
  const window = { fromUs: nowUs(), toUs: 0 };
  await measure(t, N, 'exec-', enqueue);
  window.toUs = nowUs();
  if (statements) t.statements = (await statements()) - statementsAtStart!;
  t.serviceCpuMs = service.cpuMs() - cpuAtStart;
  const syscalls = service.syscalls();
  t.serviceSyscalls = {
    reads: syscalls.reads - syscallsAtStart.reads,
    writes: syscalls.writes - syscallsAtStart.writes,
  };
  await runtime.close();
  receiver.close();
  await service.stop();
  const profiles = process.env.BENCH_PROFILE_DIR;
  if (profiles)
    printCpuSplit(`CPU split of ${prefix} over the ${N} measured approvals`, newestProfile(profiles), window, {
      count: N,
      label: 'approval',
    });
  await dropKeys(`${prefix}:*`);
  return t;
}

/** Leaves Redis as it was: a run's queues hold thousands of jobs. */
async function dropKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  for await (const keys of redis.scanStream({ match: pattern, count: 1000 }))
    if ((keys as string[]).length) await redis.del(...(keys as string[]));
  redis.disconnect();
}

/** Enqueues n requests one after another, as a runtime would, and waits for every decision. */
async function measure(
  t: Timings,
  n: number,
  idPrefix: string,
  enqueue: (executionId: string, i: number) => Promise<void>,
): Promise<void> {
  const done = waitFor(() => t.decided.size >= n, 300_000);
  const machineAtStart = machineCpuMs();
  const serversAtStart = serversCpuMs();
  for (let i = 0; i < n; i++) {
    const executionId = `${idPrefix}${i}`;
    t.requested.set(executionId, performance.now());
    await enqueue(executionId, i);
  }
  await done;
  t.machineCpuMs = machineCpuMs() - machineAtStart;
  const servers = serversCpuMs();
  t.serversCpuMs = {
    postgres: servers.postgres - serversAtStart.postgres,
    redis: servers.redis - serversAtStart.redis,
  };
}

/**
 * CPU so far of every PostgreSQL process (with the backends that have ended, which the postmaster reaped)
 * and of Redis, on this machine (Linux /proc; 0 elsewhere).
 */
function serversCpuMs(): { postgres: number; redis: number } {
  const total = { postgres: 0, redis: 0 };
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return total;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const server = name === 'postgres' ? 'postgres' : name.startsWith('redis-server') ? 'redis' : null;
      if (!server) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, and the ended children's cutime, cstime (fields 14–17), in clock ticks of 10 ms.
      total[server] += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/** Busy CPU of the whole machine so far, all cores (Linux /proc; 0 elsewhere). */
function machineCpuMs(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * The baseline's service half as plain JavaScript, like the built approval-service: both run without
 * ts-node, whose require hook (and the `repl` and `domain` modules it loads) would slow either down.
 */
function compiledBaseline(): string {
  const source = readFileSync(join(ROOT, 'bench/baseline-approval-service.ts'), 'utf8');
  const { outputText } = transpileModule(source, {
    compilerOptions: { module: ModuleKind.CommonJS, target: ScriptTarget.ES2022, esModuleInterop: true },
  });
  const file = join(ROOT, 'dist/bench/baseline-approval-service.js');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, outputText);
  return file;
}

function report(title: string, t: Timings): void {
  const toWebhook = latencies(t.requested, t.webhook);
  const toEvent = latencies(t.callback, t.published);
  const toConsumer = latencies(t.callback, t.decided);
  console.log(`\n${title}`);
  if (t.cold?.count)
    console.log(
      `  warm-up (first ${t.cold.count} after start, not in the figures below): ${t.cold.perSecond.toFixed(0)} approvals/s, p99 callback → decision event ${t.cold.callbackP99Ms.toFixed(1)} ms`,
    );
  console.log(`  ${N} approvals, ${throughput(t, N).toFixed(0)} approvals/s end to end`);
  console.log(
    `  request → webhook received: p50 ${percentile(toWebhook, 50).toFixed(1)} ms, p99 ${percentile(toWebhook, 99).toFixed(1)} ms`,
  );
  if (t.serviceCpuMs) console.log(`  service process CPU: ${(t.serviceCpuMs / N).toFixed(2)} ms per approval`);
  if (t.serviceSyscalls?.writes)
    console.log(
      `  service process system calls: ${(t.serviceSyscalls.writes / N).toFixed(1)} writes and ${(t.serviceSyscalls.reads / N).toFixed(1)} reads per approval`,
    );
  if (t.machineCpuMs) console.log(`  machine CPU, all processes: ${(t.machineCpuMs / N).toFixed(2)} ms per approval`);
  if (t.serversCpuMs?.postgres || t.serversCpuMs?.redis)
    console.log(
      `  of which PostgreSQL ${(t.serversCpuMs.postgres / N).toFixed(2)} ms and Redis ${(t.serversCpuMs.redis / N).toFixed(2)} ms per approval`,
    );
  if (t.statements !== undefined)
    console.log(`  PostgreSQL statements (pg_stat_statements): ${(t.statements / N).toFixed(2)} per approval`);
  console.log(
    `  callback → decision event published:  p50 ${percentile(toEvent, 50).toFixed(1)} ms, p99 ${percentile(toEvent, 99).toFixed(1)} ms`,
  );
  console.log(
    `  callback → decision taken by the runtime's consumer:  p50 ${percentile(toConsumer, 50).toFixed(1)} ms, p99 ${percentile(toConsumer, 99).toFixed(1)} ms`,
  );
}

function throughput(t: Timings, n: number): number {
  const start = Math.min(...t.requested.values());
  const end = Math.max(...t.decided.values());
  return (n / (end - start)) * 1000;
}

function callbackP99(t: Timings): number {
  return percentile(latencies(t.callback, t.published), 99);
}

function latencies(from: Map<string, number>, to: Map<string, number>): number[] {
  return [...to.entries()].map(([id, at]) => at - (from.get(id) ?? at)).sort((a, b) => a - b);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function listen(onBody: (req: IncomingMessage, body: string) => Promise<void>): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200).end();
      void onBody(req, body).catch((error) => console.error(error));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

function post(url: string, body: unknown): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const adminUrl = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let pg: { adminUrl: string; stop: () => Promise<void> } | null = null;
  let admin = new Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch {
    pg = await startEmbeddedPostgres({ dataDir: join(__dirname, '../.data/bench-pg'), port: 54331 });
    admin = new Client({ connectionString: pg!.adminUrl });
    await admin.connect();
  }
  const name = `bench_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const base = pg?.adminUrl ?? adminUrl;
  return {
    url: base.replace(/\/[^/]*$/, `/${name}`),
    stop: async () => {
      const cleanup = new Client({ connectionString: base });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await cleanup.end();
      await pg?.stop();
    },
  };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
