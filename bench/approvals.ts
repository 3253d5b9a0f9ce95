/**
 * `npm run bench:approvals`: N approvals through the queue against a local receiver that answers 200
 * and calls back Approved at once. Measures end-to-end approvals/s, request → webhook received and
 * callback → decision event latencies, and, in the same run, a baseline doing the same work with bare
 * Bull jobs and bare HTTP posts and no database. Prints the ratio.
 */
import { NestFactory } from '@nestjs/core';
import Bull from 'bull';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { ApprovalRuntimeClient } from '@app/contracts';
import { configureHttpApp } from '@app/http';
import { AppModule } from '../apps/approval-service/src/app.module';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startEmbeddedPostgres } = require('../scripts/embedded-postgres');

const N = Number(process.env.BENCH_N ?? 2000);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

interface Timings {
  requested: Map<string, number>;
  webhook: Map<string, number>;
  callback: Map<string, number>;
  decided: Map<string, number>;
}
const timings = (): Timings => ({ requested: new Map(), webhook: new Map(), callback: new Map(), decided: new Map() });

async function main(): Promise<void> {
  const db = await database();
  const system = await runSystem(db.url);
  const baseline = await runBaseline();
  await db.stop();
  report('approval-service (queue → DB → webhook → callback → outbox → decision)', system);
  report('baseline (bare Bull jobs and HTTP posts, no database)', baseline);
  const ratio = throughput(system) / throughput(baseline);
  console.log(`\nthroughput ratio system / baseline: ${ratio.toFixed(2)} (target ≥ 0.50)`);
  console.log(`targets: ≥ 300 approvals/s end to end: ${throughput(system) >= 300 ? 'met' : 'NOT met'}; p99 callback → decision < 50 ms: ${percentile(latencies(system.callback, system.decided), 99) < 50 ? 'met' : 'NOT met'}`);
  process.exit(0);
}

async function runSystem(databaseUrl: string): Promise<Timings> {
  const t = timings();
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: `bench:${randomBytes(32).toString('base64')}`,
    PORT: port,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_INSECURE: true,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
    CALLBACK_RATE_LIMIT_PER_MINUTE: 1_000_000,
  };
  const service = await NestFactory.create(AppModule.forRoot({ role: 'all', env }), { bodyParser: false, logger: false });
  configureHttpApp(service, { title: 'bench', description: 'bench' });
  await service.listen(port, '127.0.0.1');
  const callbackUrl = `http://127.0.0.1:${port}/v1/AgentExecutionWebhookApproval/callback`;
  const receiver = await listen(async (req, body) => {
    const payload = JSON.parse(body);
    t.webhook.set(payload.executionId, performance.now());
    t.callback.set(payload.executionId, performance.now());
    await post(callbackUrl, { callbackId: payload.callbackId, callbackToken: payload.callbackToken, status: 'Approved' });
  });
  const runtime = new ApprovalRuntimeClient(REDIS_URL, { prefix, onDecision: (e) => void t.decided.set(e.executionId, performance.now()) });
  const done = waitFor(() => t.decided.size >= N, 300_000);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  for (let i = 0; i < N; i++) {
    const executionId = `exec-${i}`;
    t.requested.set(executionId, performance.now());
    await runtime.request({ tenantId: 'bench', executionId, stepId: 'approve', agentName: 'Bench agent', webhook: { url, authentication: { type: 'None' }, timeoutSeconds: 30, maxRetryAttempts: 3, message: 'ok?' }, stepInput: { i }, previousResults: [] });
  }
  await done;
  await runtime.close();
  receiver.close();
  await service.close();
  return t;
}

/** The same work with bare Bull jobs and HTTP posts: request job → POST → callback POST → decision job. */
async function runBaseline(): Promise<Timings> {
  const t = timings();
  const prefix = `bench-base-${randomBytes(3).toString('hex')}`;
  const requests = new Bull<{ executionId: string; url: string }>('requests', REDIS_URL, { prefix });
  const decisions = new Bull<{ executionId: string }>('decisions', REDIS_URL, { prefix });
  const callbacks = await listen(async (_req, body) => {
    const { executionId } = JSON.parse(body);
    await decisions.add({ executionId }, { jobId: executionId });
  });
  const callbackUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callback`;
  const receiver = await listen(async (_req, body) => {
    const { executionId } = JSON.parse(body);
    t.webhook.set(executionId, performance.now());
    t.callback.set(executionId, performance.now());
    await post(callbackUrl, { executionId, status: 'Approved' });
  });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  void requests.process(50, async (job) => post(job.data.url, { executionId: job.data.executionId }));
  void decisions.process(async (job) => void t.decided.set(job.data.executionId, performance.now()));
  const done = waitFor(() => t.decided.size >= N, 300_000);
  for (let i = 0; i < N; i++) {
    t.requested.set(`exec-${i}`, performance.now());
    await requests.add({ executionId: `exec-${i}`, url });
  }
  await done;
  await requests.obliterate({ force: true });
  await decisions.obliterate({ force: true });
  await Promise.all([requests.close(), decisions.close()]);
  receiver.close();
  callbacks.close();
  return t;
}

function report(title: string, t: Timings): void {
  const toWebhook = latencies(t.requested, t.webhook);
  const toDecision = latencies(t.callback, t.decided);
  console.log(`\n${title}`);
  console.log(`  ${N} approvals, ${throughput(t).toFixed(0)} approvals/s end to end`);
  console.log(`  request → webhook received: p50 ${percentile(toWebhook, 50).toFixed(1)} ms, p99 ${percentile(toWebhook, 99).toFixed(1)} ms`);
  console.log(`  callback → decision event:  p50 ${percentile(toDecision, 50).toFixed(1)} ms, p99 ${percentile(toDecision, 99).toFixed(1)} ms`);
}

function throughput(t: Timings): number {
  const start = Math.min(...t.requested.values());
  const end = Math.max(...t.decided.values());
  return (N / (end - start)) * 1000;
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

async function post(url: string, body: unknown): Promise<void> {
  const { request } = await import('node:http');
  await new Promise<void>((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => (condition() ? resolve() : Date.now() > deadline ? reject(new Error('timed out')) : setTimeout(tick, 20));
    tick();
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

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) => probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
