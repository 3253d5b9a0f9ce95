/**
 * `npm run demo:approval`: one approval end to end, printed step by step: the agent runtime enqueues a
 * request, a local receiver gets the webhook and approves, the decision comes back.
 *
 * By default it starts its own approval-service in this process (an embedded PostgreSQL unless
 * DATABASE_URL is set; Redis from REDIS_URL, or the cluster of REDIS_CLUSTER_NODES, queues under a demo-*
 * prefix that is removed at the end).
 * `npm run demo:approval -- --against-running` uses the stack `npm start` runs instead: its
 * approval-service (APPROVAL_SERVICE_URL, default http://localhost:3002), its Redis and queues (REDIS_URL,
 * QUEUE_PREFIX, with npm start's defaults) and the demo tenant, so the console's Approvals page shows it.
 */
import { NestFactory } from '@nestjs/core';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { ApprovalRequestJob, SharedQueue } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { configureHttpApp, fastifyAdapter } from '@app/http';
import { deleteKeys, keyPrefixOf, QueueConnection, RedisConnection } from '@app/redis';
import { AppModule } from '../apps/approval-service/src/app.module';
const { startEmbeddedPostgres } = require('./embedded-postgres');
const { devSecrets } = require('./dev-secrets');
const { signToken, DEMO_TENANT, DEMO_ADMIN } = require('./token');

const DECISION_WAIT_MS = 60_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS: RedisConnection = { url: REDIS_URL, clusterNodes: process.env.REDIS_CLUSTER_NODES };

interface Decision {
  outcome: string;
  comment: string | null;
  decidedAt: string | null;
}

/** Where the demo's approval is requested and decided. */
interface ApprovalStack {
  serviceUrl: string;
  tenantId: string;
  describe(): string;
  request(job: ApprovalRequestJob): Promise<void>;
  decision(executionId: string, stepId: string): Promise<Decision>;
  stop(): Promise<void>;
}

const step = (n: number, text: string) => console.log(`\n[${n}] ${text}`);

/** The approval-service in this process, with a database and queues of its own. */
async function ownStack(): Promise<ApprovalStack> {
  const prefix = `demo-${randomBytes(3).toString('hex')}`;
  const db = await database();
  const port = await freePort();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL,
    ...(REDIS.clusterNodes && { REDIS_CLUSTER_NODES: REDIS.clusterNodes }),
    QUEUE_PREFIX: prefix,
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: `demo:${randomBytes(32).toString('base64')}`,
    PORT: port,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_INSECURE: true,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
  };
  const service = await NestFactory.create(AppModule.forRoot({ role: 'all', env }), fastifyAdapter(env), {
    bodyParser: false,
    logger: ['error'],
  });
  configureHttpApp(service, { title: 'Approval service', description: 'demo' });
  await service.listen(port, '127.0.0.1');
  const runtime = new ApprovalRuntimeClient(REDIS_URL, { prefix, clusterNodes: REDIS.clusterNodes });
  return {
    serviceUrl: `http://127.0.0.1:${port}`,
    tenantId: 'demo-tenant',
    describe: () => `an approval-service of its own on port ${port}, queues under ${prefix} (removed at the end)`,
    request: (job) => runtime.request(job),
    decision: (executionId, stepId) => runtime.awaitDecision('demo-tenant', executionId, stepId, DECISION_WAIT_MS),
    stop: async () => {
      await runtime.close().catch(() => undefined);
      await service.close().catch(() => undefined);
      await db.stop();
      await deleteKeys(REDIS, `${keyPrefixOf(REDIS, prefix)}:*`);
    },
  };
}

/** The approval-service `npm start` runs, reached over HTTP and its queues, as the demo tenant's admin. */
async function runningStack(): Promise<ApprovalStack> {
  const serviceUrl = process.env.APPROVAL_SERVICE_URL ?? 'http://localhost:3002';
  const prefix = process.env.QUEUE_PREFIX || 'agent-platform'; // npm start's (scripts/start.js)
  const ready = await fetch(`${serviceUrl}/health/ready`, { signal: AbortSignal.timeout(3000) }).then(
    (r) => r.ok,
    () => false,
  );
  if (!ready)
    throw new Error(
      `No approval-service answered at ${serviceUrl}/health/ready. Start the stack with \`npm start\` first (or set APPROVAL_SERVICE_URL).`,
    );
  const token = await signToken(process.env.AUTH_JWT_SECRET ?? devSecrets().AUTH_JWT_SECRET, {
    tenant: DEMO_TENANT,
    user: DEMO_ADMIN,
    roles: 'admin',
    expires: '10m',
  });
  // Requests only: the decision is read over HTTP, so the stack's decision events stay for its runtime.
  const connection = new QueueConnection(REDIS);
  const requests = connection.queue<ApprovalRequestJob>(SharedQueue.ApprovalRequests, prefix);
  return {
    serviceUrl,
    tenantId: DEMO_TENANT,
    describe: () => `the running approval-service at ${serviceUrl} (queues under ${prefix}), tenant ${DEMO_TENANT}`,
    request: async (job) =>
      void (await requests.add(job, {
        jobId: `${job.tenantId}:${job.executionId}:${job.stepId}`,
        removeOnComplete: 1000,
        removeOnFail: 1000,
      })),
    decision: (executionId) => decidedOverHttp(serviceUrl, token, executionId),
    stop: async () => {
      await requests.close();
      connection.disconnect();
    },
  };
}

async function decidedOverHttp(serviceUrl: string, token: string, executionId: string): Promise<Decision> {
  const deadline = Date.now() + DECISION_WAIT_MS;
  while (Date.now() < deadline) {
    const res = await fetch(`${serviceUrl}/v1/approvals?executionId=${executionId}`, {
      headers: { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new Error(`GET /v1/approvals answered ${res.status}: ${await res.text()}`);
    const [approval] = (await res.json()) as Array<{
      status: string;
      comment: string | null;
      decidedAt: string | null;
    }>;
    if (approval && !['Pending', 'AwaitingDecision'].includes(approval.status))
      return { outcome: approval.status, comment: approval.comment, decidedAt: approval.decidedAt };
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`no decision for ${executionId} within ${DECISION_WAIT_MS} ms`);
}

/** A webhook receiver that confirms receipt, then approves through the callback. */
async function approvingReceiver(serviceUrl: string): Promise<{ url: string; close: () => void }> {
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const payload = JSON.parse(body);
      step(
        2,
        `Receiver got the webhook (webhook-id ${req.headers['webhook-id']}): agent "${payload.agentName}" asks "${payload.message}"`,
      );
      console.log(`    stepInput: ${JSON.stringify(payload.stepInput)}; answering 200 to confirm receipt`);
      res.writeHead(200).end();
      step(3, 'Receiver calls back: Approved ("Within budget")');
      const answer = await fetch(`${serviceUrl}/v1/AgentExecutionWebhookApproval/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          callbackId: payload.callbackId,
          callbackToken: payload.callbackToken,
          status: 'Approved',
          comment: 'Within budget',
        }),
        signal: AbortSignal.timeout(10_000),
      });
      console.log(`    callback answered ${answer.status} ${await answer.text()}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/approvals`,
    close: () => receiver.close(),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'against-running': { type: 'boolean', default: false } } });
  const stack = values['against-running'] ? await runningStack() : await ownStack();
  const receiver = await approvingReceiver(stack.serviceUrl);
  try {
    console.log(`Using ${stack.describe()}.`);
    const executionId = `exec-${randomUUID().slice(0, 8)}`;
    step(1, `Agent run ${executionId} reaches the webhook approval step: the runtime enqueues the request and pauses`);
    const decision = stack.decision(executionId, 'approve-purchase');
    await stack.request({
      tenantId: stack.tenantId,
      executionId,
      stepId: 'approve-purchase',
      agentName: 'Procurement agent',
      webhook: {
        url: receiver.url,
        authentication: { type: 'BearerToken', token: 'demo-receiver-token' },
        timeoutSeconds: 30,
        maxRetryAttempts: 3,
        message: 'Approve purchase order 4711 (1,250.50 EUR)?',
      },
      stepInput: { purchaseOrder: 4711, amount: 1250.5, currency: 'EUR' },
      previousResults: [{ stepId: 'draft-order', output: 'PO 4711 drafted' }],
    });
    const event = await decision;
    step(
      4,
      `Decision: ${event.outcome} (comment "${event.comment}") at ${event.decidedAt}, published on approval-decisions`,
    );
    step(5, `The run continues on the ${event.outcome.toUpperCase()} path.`);
    if (values['against-running'])
      console.log('\nThe console shows it under Approvals (http://localhost:3001/console, the demo tenant).');
  } finally {
    receiver.close();
    await stack.stop();
  }
}

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const pg = await startEmbeddedPostgres({ dataDir: join(__dirname, '../.data/demo-pg'), port: 54330 });
  const admin = new Client({ connectionString: pg.adminUrl });
  await admin.connect();
  if (!(await admin.query("SELECT 1 FROM pg_database WHERE datname = 'demo'")).rowCount)
    await admin.query('CREATE DATABASE demo');
  await admin.end();
  return { url: pg.adminUrl.replace(/\/postgres$/, '/demo'), stop: pg.stop };
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

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
