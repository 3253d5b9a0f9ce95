/**
 * `npm run demo:approval`: one approval end to end, printed step by step. Starts the approval-service
 * in this process (an embedded PostgreSQL unless DATABASE_URL is set; Redis from REDIS_URL), a local
 * receiver that approves, and the reference runtime client that requests and awaits the decision.
 */
import { NestFactory } from '@nestjs/core';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { ApprovalRuntimeClient } from '@app/contracts';
import { configureHttpApp } from '@app/http';
import { AppModule } from '../apps/approval-service/src/app.module';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startEmbeddedPostgres } = require('./embedded-postgres');

const step = (n: number, text: string) => console.log(`\n[${n}] ${text}`);

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const pg = await startEmbeddedPostgres({ dataDir: join(__dirname, '../.data/demo-pg'), port: 54330 });
  const admin = new Client({ connectionString: pg.adminUrl });
  await admin.connect();
  if (!(await admin.query("SELECT 1 FROM pg_database WHERE datname = 'demo'")).rowCount) await admin.query('CREATE DATABASE demo');
  await admin.end();
  return { url: pg.adminUrl.replace(/\/postgres$/, '/demo'), stop: pg.stop };
}

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const db = await database();
  const prefix = `demo-${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: `demo:${randomBytes(32).toString('base64')}`,
    PORT: port,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_INSECURE: true,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
  };
  const service = await NestFactory.create(AppModule.forRoot({ role: 'all', env }), { bodyParser: false, logger: ['error'] });
  configureHttpApp(service, { title: 'Approval service', description: 'demo' });
  await service.listen(port, '127.0.0.1');
  const serviceUrl = `http://127.0.0.1:${port}`;

  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const payload = JSON.parse(body);
      step(2, `Receiver got the webhook (webhook-id ${req.headers['webhook-id']}): agent "${payload.agentName}" asks "${payload.message}"`);
      console.log(`    stepInput: ${JSON.stringify(payload.stepInput)}; answering 200 to confirm receipt`);
      res.writeHead(200).end();
      step(3, 'Receiver calls back: Approved ("Within budget")');
      const answer = await fetch(`${serviceUrl}/v1/AgentExecutionWebhookApproval/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ callbackId: payload.callbackId, callbackToken: payload.callbackToken, status: 'Approved', comment: 'Within budget' }),
      });
      console.log(`    callback answered ${answer.status} ${await answer.text()}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/approvals`;

  const runtime = new ApprovalRuntimeClient(redisUrl, { prefix });
  const executionId = `exec-${randomUUID().slice(0, 8)}`;
  step(1, `Agent run ${executionId} reaches the webhook approval step: the runtime enqueues the request and pauses`);
  const decision = runtime.awaitDecision('demo-tenant', executionId, 'approve-purchase', 60000);
  await runtime.request({
    tenantId: 'demo-tenant',
    executionId,
    stepId: 'approve-purchase',
    agentName: 'Procurement agent',
    webhook: { url: receiverUrl, authentication: { type: 'BearerToken', token: 'demo-receiver-token' }, timeoutSeconds: 30, maxRetryAttempts: 3, message: 'Approve purchase order 4711 (1,250.50 EUR)?' },
    stepInput: { purchaseOrder: 4711, amount: 1250.5, currency: 'EUR' },
    previousResults: [{ stepId: 'draft-order', output: 'PO 4711 drafted' }],
  });
  const event = await decision;
  step(4, `Decision event on approval-decisions: ${event.outcome} (comment "${event.comment}") at ${event.decidedAt}`);
  step(5, event.outcome === 'Approved' ? 'The run continues on the APPROVED path.' : `The run continues on the ${event.outcome.toUpperCase()} path.`);

  await runtime.close();
  receiver.close();
  await service.close();
  await db.stop();
}

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) => probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  }));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
