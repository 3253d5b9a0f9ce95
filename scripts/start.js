#!/usr/bin/env node
'use strict';
/**
 * `npm start`: the whole system for a newcomer. Builds if needed, starts an embedded PostgreSQL when
 * DATABASE_URL is not set and an embedded Redis when REDIS_URL is not set and none answers locally, runs
 * both services and the simulator, waits until each is ready, and prints their addresses and a
 * ready-to-use admin token. Everything listens on 127.0.0.1 (this machine only: the console signs admin
 * tokens and the simulator's admin API is open) unless BIND_ADDRESS says otherwise.
 *
 * Ctrl-C reaches every process of the terminal's foreground group at once, and PostgreSQL stopping under
 * running services makes them log database errors. So this script re-runs itself as a supervisor in a
 * process group of its own (with the services, PostgreSQL and Redis), forwards the signal to it, and the
 * supervisor stops the services first, then PostgreSQL and Redis.
 */
const { withoutPassword } = require('./store-address');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const Redis = require('ioredis');
const { devSecrets } = require('./dev-secrets');
const { startEmbeddedPostgres } = require('./embedded-postgres');
const { startEmbeddedRedis } = require('./embedded-redis');
const { signToken } = require('./token');

const ROOT = path.resolve(__dirname, '..');
const DEMO_TENANT = '00000000-0000-4000-8000-000000000001';
/** The console's demo project (apps/console/src/session/session.ts), used by the README's walkthrough too. */
const DEMO_PROJECT = '00000000-0000-4000-8000-000000000101';
const DEMO_ADMIN = '00000000-0000-4000-8000-0000000000a1';
const APPS = [
  { name: 'document-system-simulator', port: 3003 },
  // The connector's heap cap: see apps/connector-service/src/heap-cap.ts.
  { name: 'connector-service', port: 3001, nodeArgs: ['--max-old-space-size=512'] },
  { name: 'approval-service', port: 3002 },
];
const mainOf = (app) => path.join(ROOT, 'dist/apps', app, 'apps', app, 'src/main.js');
const CONSOLE_INDEX = path.join(ROOT, 'dist/console/index.html');
/** The web console is served by the connector-service and calls the approval-service from the browser. */
const CONSOLE_ENV = {
  'connector-service': { CONSOLE_DEV_LOGIN: 'true', APPROVAL_SERVICE_URL: 'http://localhost:3002' },
  'approval-service': { CORS_ORIGINS: 'http://localhost:3001' },
  'document-system-simulator': { SIMULATOR_STATE_FILE: path.join(ROOT, '.data/simulator/state.json') },
};
const LOCAL_REDIS = { url: 'redis://127.0.0.1:6379', port: 6379 };
/** The queues' Redis key prefix: our own, so a Redis shared with other projects (Bull's default is `bull`) keeps them apart. */
const QUEUE_PREFIX = process.env.QUEUE_PREFIX || 'agent-platform';
/** Where the apps listen: this machine only, unless BIND_ADDRESS (e.g. 0.0.0.0) opens them. */
const BIND_ADDRESS = process.env.BIND_ADDRESS || '127.0.0.1';
const children = [];
let database;
let embeddedRedis;
/** What the welcome banner says about the stores used, e.g. `redis://127.0.0.1:6379 (embedded …)`. */
const stores = {};

async function main() {
  buildIfNeeded();
  const redisUrl = process.env.REDIS_URL ? await requireRedis(process.env.REDIS_URL) : await localOrEmbeddedRedis();
  const databaseUrl = process.env.DATABASE_URL ?? (await embeddedDatabase());
  stores.postgres ??= `${withoutPassword(databaseUrl)} (DATABASE_URL)`;
  const secrets = {
    ...devSecrets(),
    ...pick(process.env, ['AUTH_JWT_SECRET', 'ENCRYPTION_KEY', 'WEBHOOK_SIGNING_SECRET']),
  };
  const shared = {
    ...secrets,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX,
    BIND_ADDRESS,
    ALLOW_INSECURE_URLS: 'true',
    ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // /metrics is closed by default; on loopback only, npm start opens it unless the caller says otherwise.
    METRICS_PUBLIC: process.env.METRICS_PUBLIC ?? String(isLoopback(BIND_ADDRESS)),
    // No load balancer to tell: Ctrl-C stops serving at once (requests in flight still finish).
    SHUTDOWN_DRAIN_MS: process.env.SHUTDOWN_DRAIN_MS ?? '0',
  };
  for (const app of APPS) {
    const env = {
      ...process.env,
      ...shared,
      ...CONSOLE_ENV[app.name],
      PORT: String(app.port),
      PUBLIC_BASE_URL: `http://localhost:${app.port}`,
      // The demo admin is the operator here: it may open the queue dashboard.
      QUEUE_DASHBOARD_TENANT: DEMO_TENANT,
    };
    children.push(run(app.name, env));
  }
  await Promise.all(APPS.map((app) => waitReady(app)));
  const token = await signToken(secrets.AUTH_JWT_SECRET, {
    tenant: DEMO_TENANT,
    user: DEMO_ADMIN,
    roles: 'admin',
    expires: '12h',
  });
  printWelcome(token);
}

function buildIfNeeded() {
  const mains = [...APPS.map((app) => mainOf(app.name)), CONSOLE_INDEX];
  const builtAt = Math.min(...mains.map((m) => (fs.existsSync(m) ? fs.statSync(m).mtimeMs : 0)));
  if (builtAt > newestSource(['apps', 'libs'].map((d) => path.join(ROOT, d)))) return;
  console.log('Building the services and the console (first start or sources changed)…');
  // A production build whatever NODE_ENV the caller has (a test runner's 'test' would make React a development build).
  const result = spawnSync('npm', ['run', 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0)
    fail(result.signal ? `The build was stopped (${result.signal}).` : 'The build failed; see the output above.');
}

/** Tests and their helpers are not in dist, so a change to them needs no build. */
const NOT_BUILT = /^(test|testing)$|[.-]spec\.ts$/;

function newestSource(dirs) {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (NOT_BUILT.test(entry.name)) continue;
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|tsx|mts|css|html)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  dirs.filter(fs.existsSync).forEach(walk);
  return newest;
}

async function requireRedis(url) {
  if (!(await redisAnswers(url)))
    fail(
      `No Redis answered at REDIS_URL (${withoutPassword(url)}): start it, or unset REDIS_URL to let npm start run one.`,
    );
  stores.redis = `${withoutPassword(url)} (REDIS_URL)`;
  return url;
}

async function localOrEmbeddedRedis() {
  if (await redisAnswers(LOCAL_REDIS.url)) {
    stores.redis = `${LOCAL_REDIS.url} (one that was running already, not started by npm start)`;
    console.log(`No REDIS_URL set: using the Redis that answers on ${LOCAL_REDIS.url}, keys under ${QUEUE_PREFIX}:.`);
    return LOCAL_REDIS.url;
  }
  embeddedRedis = await startEmbeddedRedis({ dir: path.join(ROOT, '.data/redis'), port: LOCAL_REDIS.port }).catch(
    (error) =>
      fail(`No Redis answered at ${LOCAL_REDIS.url} and none could be started: ${error.message.replace(/\.$/, '')}.`),
  );
  console.log(
    `No REDIS_URL set and no Redis on port ${LOCAL_REDIS.port}: started an embedded Redis there (redis-server, data in .data/redis, AOF on).`,
  );
  stores.redis = `${embeddedRedis.url} (embedded, data in .data/redis)`;
  return embeddedRedis.url;
}

async function redisAnswers(url) {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function embeddedDatabase() {
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  console.log(`No DATABASE_URL set: starting an embedded PostgreSQL on port ${port}…`);
  const dataDir = path.join(ROOT, '.data/pg');
  database = await startEmbeddedPostgres({ dataDir, port }).catch((error) =>
    fail(`The embedded PostgreSQL did not start: ${error.message}`),
  );
  handleSignals();
  const elsewhere = database.dataDir !== dataDir;
  console.log(
    `  data in ${elsewhere ? `${database.dataDir} (user postgres, which runs it, cannot enter this checkout)` : '.data/pg'}`,
  );
  const client = new Client({ connectionString: database.adminUrl });
  await client.connect();
  const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'platform'");
  if (!rowCount) await client.query('CREATE DATABASE platform');
  await client.end();
  const url = database.adminUrl.replace(/\/postgres$/, '/platform');
  stores.postgres = `${withoutPassword(url)} (embedded, data in ${elsewhere ? database.dataDir : '.data/pg'})`;
  return url;
}

function run(name, env) {
  const nodeArgs = APPS.find((app) => app.name === name)?.nodeArgs ?? [];
  const child = spawn(process.execPath, [...nodeArgs, mainOf(name)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (stream, out) => {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop();
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (!shuttingDown) {
      console.error(`[${name}] exited (${signal ?? code}); stopping everything.`);
      shutdown(1);
    }
  });
  return child;
}

async function waitReady({ name, port }) {
  const deadline = Date.now() + 120000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://${reachable(BIND_ADDRESS)}:${port}/health/ready`, {
        signal: AbortSignal.timeout(2000),
      });
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  fail(`${name} did not become ready on port ${port} within 2 minutes.`);
}

function printWelcome(token) {
  console.log(`
================================================================================
 Everything is up.
   connector-service          http://localhost:3001   (API docs: http://localhost:3001/docs)
   approval-service           http://localhost:3002   (API docs: http://localhost:3002/docs)
   document-system simulator  http://localhost:3003   (API docs: http://localhost:3003/docs)
   console                    http://localhost:3001/console   (development sign-in is on)
   PostgreSQL                 ${stores.postgres}
   Redis                      ${stores.redis}, queue keys under ${QUEUE_PREFIX}: (QUEUE_PREFIX)

 Demo project (the console's and README's walkthrough's): ${DEMO_PROJECT}
 Admin token (tenant ${DEMO_TENANT}, valid 12 h):
   export TOKEN=${token}
 More tokens: npm run -s token -- --tenant <tenant> --user <user> --roles admin
 ${BIND_ADDRESS === '127.0.0.1' ? 'Listening on 127.0.0.1 only; BIND_ADDRESS=0.0.0.0 npm start opens them to the network.' : `Listening on ${BIND_ADDRESS} (BIND_ADDRESS): other machines reach the services and the simulator's open admin API.`}
 Stop with Ctrl+C.
================================================================================
`);
}

function isLoopback(address) {
  return /^127\./.test(address) || address === '::1';
}

/** An address to call a server bound to `bound` at: every interface is reached on loopback. */
function reachable(bound) {
  if (bound === '0.0.0.0') return '127.0.0.1';
  if (bound === '::') return '[::1]';
  return bound.includes(':') ? `[${bound}]` : bound;
}

let shuttingDown = false;
async function shutdown(code) {
  if (shuttingDown) return;
  shuttingDown = true;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map((child) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : null)),
  );
  await database?.stop().catch(() => undefined);
  await embeddedRedis?.stop();
  const stopped = [
    children.length && 'the services',
    database && 'the embedded PostgreSQL',
    embeddedRedis && 'the embedded Redis',
  ].filter(Boolean);
  console.log(`Stopped${stopped.length ? ` ${stopped.join(', ')}` : ''}.`);
  process.exit(code);
}

function pick(source, keys) {
  return Object.fromEntries(keys.filter((k) => source[k]).map((k) => [k, source[k]]));
}

function fail(message) {
  console.error(`\n${message}\n`);
  shutdown(1);
  throw new Error(message);
}

/** The embedded-postgres package adds handlers that exit at once; this script stops everything in order. */
function handleSignals() {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.removeAllListeners(signal);
    process.on(signal, () => shutdown(0));
  }
}

/** The terminal's process: starts the supervisor in a group of its own and hands it the signals it gets. */
function launchSupervisor() {
  const supervisor = spawn(process.execPath, [__filename], {
    detached: true,
    // Its stdin is a pipe from here: when this process dies, even by SIGKILL, the supervisor sees it end.
    stdio: ['pipe', 'inherit', 'inherit'],
    env: { ...process.env, NPM_START_SUPERVISOR: '1' },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => supervisor.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal));
  supervisor.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.env.NPM_START_SUPERVISOR !== '1') launchSupervisor();
else {
  handleSignals();
  process.stdin.on('end', () => shutdown(0)).resume();
  main().catch((error) => {
    if (!shuttingDown) console.error(error);
    shutdown(1);
  });
}
