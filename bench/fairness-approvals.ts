/**
 * `npm run bench:fairness-approvals`: tenant B's 200 approvals through two approval-service processes
 * (each with every role, so two worker processes sharing Redis and PostgreSQL), 25 a second: delivery
 * p99 (request enqueued → webhook received) alone, and again while tenant A's 50 receivers hang until
 * their timeout (3,600 s). Three rounds of both, alternated; prints and returns the medians and the ratio of
 * the p99s (target ≤ 2×).
 */
import Redis from 'ioredis';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { deliverySlots } from '../apps/approval-service/src/delivery/delivery.jobs';
import { benchDatabase, failBench } from './bench-database';

const ROOT = join(__dirname, '..');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const B_APPROVALS = 200;
const A_HANGING = 50;
const WARMUP = 300;
/** B's approvals arrive at this rate, well below what two workers take, so the p99 is a delivery's wait, not a backlog's. */
const PER_SECOND = 25;
/** Rounds of alone, then hanging; the figures are their medians. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Delivery slots per worker process (the default): two workers share 100, 16 of them reserved, so A's half is 42. */
const SLOTS_PER_WORKER = 50;

/** One round: B's approvals alone, then with A's receivers hanging. Latencies in ms. */
export interface FairnessRound {
  aloneP50Ms: number;
  aloneP99Ms: number;
  hangingP50Ms: number;
  hangingP99Ms: number;
  /** The most of A's attempts in flight at once while B's approvals ran. */
  hangingHeldMax: number;
}

/** The medians of the rounds' figures, and the ratio of the p99s. */
export interface FairnessApprovalsResult extends FairnessRound {
  workers: number;
  slots: number;
  approvals: number;
  rounds: FairnessRound[];
  ratio: number;
  target: number;
  met: boolean;
}

export async function run(): Promise<FairnessApprovalsResult> {
  const db = await benchDatabase();
  const prefix = `bench-fair-${randomBytes(3).toString('hex')}`;
  const services: Service[] = [];
  const prompt = await promptReceiver();
  const hanging = await hangingReceiver();
  const runtime = new ApprovalRuntimeClient(REDIS_URL, { prefix });
  try {
    const secrets = {
      AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: `bench:${randomBytes(32).toString('base64')}`,
    };
    // One after the other: the first one migrates the database.
    for (let i = 0; i < 2; i++)
      services.push(await startService({ DATABASE_URL: db.url, QUEUE_PREFIX: prefix, ...secrets }));
    const approvals = (tenantId: string, url: string, count: number, webhook: object = {}) =>
      enqueue(runtime, prompt, tenantId, url, count, webhook);

    await approvals('warm-up', prompt.url, WARMUP);
    const rounds: FairnessRound[] = [];
    // Alone and hanging alternate, so the machine's drift (it is shared) falls on both alike.
    for (let round = 0; round < ROUNDS; round++) {
      const alone = await approvals('tenant-b', prompt.url, B_APPROVALS);
      // They never answer: what counts is that A holds what it can before B's approvals come.
      hanging.hang();
      await approvals('tenant-a', hanging.url, A_HANGING, { timeoutSeconds: 3600, maxRetryAttempts: 0 });
      await steady(hanging.inFlight);
      let hangingHeldMax = hanging.inFlight();
      const sampler = setInterval(() => (hangingHeldMax = Math.max(hangingHeldMax, hanging.inFlight())), 20);
      const whileHanging = await approvals('tenant-b', prompt.url, B_APPROVALS);
      clearInterval(sampler);
      // A's receivers drop their connections, and those of its attempts still waiting for a slot as they come:
      // its attempts fail (no retry) and its slots come back.
      hanging.dropAll();
      await waitFor(() => hanging.inFlight() === 0, 30_000);
      await sleep(2000);
      rounds.push({
        aloneP50Ms: percentile(alone, 50),
        aloneP99Ms: percentile(alone, 99),
        hangingP50Ms: percentile(whileHanging, 50),
        hangingP99Ms: percentile(whileHanging, 99),
        hangingHeldMax,
      });
    }
    const median = (key: keyof FairnessRound) =>
      percentile(
        rounds.map((r) => r[key]).sort((a, b) => a - b),
        50,
      );
    const ratio = median('hangingP99Ms') / median('aloneP99Ms');
    const result: FairnessApprovalsResult = {
      workers: services.length,
      slots: services.length * SLOTS_PER_WORKER,
      approvals: B_APPROVALS,
      aloneP50Ms: median('aloneP50Ms'),
      aloneP99Ms: median('aloneP99Ms'),
      hangingP50Ms: median('hangingP50Ms'),
      hangingP99Ms: median('hangingP99Ms'),
      hangingHeldMax: Math.max(...rounds.map((r) => r.hangingHeldMax)),
      rounds,
      ratio,
      target: 2,
      met: ratio <= 2,
    };
    print(result);
    return result;
  } finally {
    hanging.stop();
    prompt.server.close();
    await runtime.close();
    await Promise.all(services.map((service) => service.stop()));
    await dropKeys(`${prefix}:*`);
    await db.stop();
  }
}

function print(r: FairnessApprovalsResult): void {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`
tenant B's ${r.approvals} approvals, ${r.workers} worker processes (${r.slots} delivery slots)`);
  r.rounds.forEach((round, i) =>
    console.log(
      `  round ${i + 1}: p99 alone ${ms(round.aloneP99Ms)}, while A's receivers hang ${ms(round.hangingP99Ms)} (A in flight: at most ${round.hangingHeldMax})`,
    ),
  );
  console.log(
    `  request → webhook received, alone (median of rounds):            p50 ${ms(r.aloneP50Ms)}, p99 ${ms(r.aloneP99Ms)}`,
  );
  console.log(
    `  while tenant A's ${A_HANGING} receivers hang (3,600 s) (median of rounds): p50 ${ms(r.hangingP50Ms)}, p99 ${ms(r.hangingP99Ms)}`,
  );
  console.log(
    `  tenant A's attempts in flight meanwhile: at most ${r.hangingHeldMax} (half of the slots not reserved: ${halfNotReserved(r.workers)})`,
  );
  console.log(`  p99 ratio: ${r.ratio.toFixed(2)}× (target ≤ ${r.target}×): ${r.met ? 'met' : 'NOT met'}`);
}

/** Enqueues `count` approvals at PER_SECOND, as runs reach their step; resolves with each one's delivery latency (ms), sorted. */
async function enqueue(
  runtime: ApprovalRuntimeClient,
  prompt: PromptReceiver,
  tenantId: string,
  url: string,
  count: number,
  webhook: object,
): Promise<number[]> {
  const ids: string[] = [];
  const requested = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await sleep(started + (i * 1000) / PER_SECOND - performance.now());
    const executionId = `${tenantId}-${randomBytes(6).toString('hex')}`;
    ids.push(executionId);
    requested.set(executionId, performance.now());
    await runtime.request({
      tenantId,
      executionId,
      stepId: 'approve',
      agentName: 'Bench agent',
      webhook: {
        url,
        authentication: { type: 'None' },
        timeoutSeconds: 30,
        maxRetryAttempts: 3,
        message: 'ok?',
        ...webhook,
      },
      stepInput: { i },
      previousResults: [],
    });
  }
  if (url !== prompt.url) return [];
  await waitFor(() => ids.every((id) => prompt.received.has(id)), 120_000);
  return ids.map((id) => prompt.received.get(id)! - requested.get(id)!).sort((a, b) => a - b);
}

interface PromptReceiver {
  url: string;
  server: Server;
  received: Map<string, number>;
}

/** Answers 200 at once, then calls back Approved, as a person approving at once would. */
async function promptReceiver(): Promise<PromptReceiver> {
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const payload = JSON.parse(body);
      received.set(payload.executionId, performance.now());
      res.writeHead(200).end();
      post(payload.callbackUrl, {
        callbackId: payload.callbackId,
        callbackToken: payload.callbackToken,
        status: 'Approved',
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server, received };
}

/** Takes each request and never answers, until it drops them all. */
async function hangingReceiver(): Promise<{
  url: string;
  inFlight: () => number;
  hang: () => void;
  dropAll: () => void;
  stop: () => void;
}> {
  const sockets = new Set<Socket>();
  let dropping = false;
  const server = createServer(() => undefined);
  server.on('connection', (socket) => {
    if (dropping) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    inFlight: () => sockets.size,
    hang: () => (dropping = false),
    dropAll: () => {
      dropping = true;
      sockets.forEach((socket) => socket.destroy());
    },
    stop: () => {
      sockets.forEach((socket) => socket.destroy());
      server.close();
    },
  };
}

function halfNotReserved(workers: number): number {
  const { slots, reserved } = deliverySlots(SLOTS_PER_WORKER);
  return Math.floor((workers * (slots - reserved)) / 2);
}

function post(url: string, body: unknown): void {
  const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) =>
    res.resume(),
  );
  req.on('error', () => undefined);
  req.end(JSON.stringify(body));
}

type Service = { stop: () => Promise<void> };

/** The built approval-service in its own process with every role, as `npm start` runs it; resolves once it is ready. */
async function startService(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'dist/apps/approval-service/apps/approval-service/src/main.js')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        NODE_ENV: 'production',
        REDIS_URL,
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_INSECURE: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        CALLBACK_RATE_LIMIT_PER_MINUTE: '1000000',
        DELIVERY_SLOTS: String(SLOTS_PER_WORKER),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(async () => child.exitCode === null && (await ready(port)), 120_000);
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      child.kill('SIGKILL');
    },
  };
}

function ready(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/health/ready', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function dropKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  for await (const keys of redis.scanStream({ match: pattern, count: 1000 }))
    if ((keys as string[]).length) await redis.del(...(keys as string[]));
  redis.disconnect();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** Waits until A's attempts in flight (all of them, or its share of the slots) stop growing for 2 s. */
async function steady(count: () => number): Promise<void> {
  await waitFor(() => count() > 0, 60_000);
  let last: number;
  do {
    last = count();
    await sleep(2000);
  } while (count() !== last);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) =>
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    }),
  );
}

if (require.main === module)
  run()
    .then(() => process.exit(0))
    .catch(failBench);
