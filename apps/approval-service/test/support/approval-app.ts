import { PassThrough } from 'node:stream';
import { INestApplication } from '@nestjs/common';
import Bull from 'bull';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ProcessRole } from '@app/config';
import { fastifyAdapter } from '@app/http';
import { ApprovalDecisionEvent, SharedQueue } from '@app/contracts/payloads';
import { QueueConnection, redisConnectionOf } from '@app/redis';
import {
  allStoredText as storedText,
  appUnderTest,
  createHttpApp,
  eventually,
  listenOnLoopback,
  testEnv,
} from '@app/testing';
import { AppModule } from '../../src/app.module';

export const SIGNING_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

export interface ApprovalTestApp {
  app: INestApplication;
  url: string;
  db: DataSource;
  env: Record<string, unknown>;
  decisions: Bull.Queue<ApprovalDecisionEvent>;
  requests: Bull.Queue;
  /** The decision event of an approval, once published (the agent runtime's view). */
  decision(approvalId: string, timeoutMs?: number): Promise<ApprovalDecisionEvent>;
  /** How many decision events exist for an approval. */
  decisionCount(approvalId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The approval-service on a real port (any free one, or `port`, e.g. one that PUBLIC_BASE_URL already
 * names) with its own Redis prefix; webhooks to loopback allowed.
 */
export async function startApprovalApp(
  overrides: Record<string, unknown> = {},
  role: ProcessRole = 'all',
  port = 0,
  /** Where the app's log lines go, one JSON line each (at the env's LOG_LEVEL), instead of stdout. */
  logLines?: string[],
): Promise<ApprovalTestApp> {
  const env = testEnv({
    WEBHOOK_ALLOW_INSECURE: true,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
    WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
    OUTBOX_POLL_MS: 200,
    // The run's apps share one database: a sweep would send on other test files' approvals.
    DELIVERY_SWEEP_MS: 3_600_000,
    REMINDER_SWEEP_MS: 3_600_000,
    ...overrides,
  });
  const logDestination = logLines ? lineSink(logLines) : undefined;
  const app = await createHttpApp(
    AppModule.forRoot({ role, env, logDestination }),
    'Approval service',
    approvalAdapter(env),
  );
  const url = await listenOnLoopback(app, port);
  const connection = new QueueConnection(redisConnectionOf(env as { REDIS_URL: string; REDIS_CLUSTER_NODES?: string }));
  const decisions = connection.queue<ApprovalDecisionEvent>(SharedQueue.ApprovalDecisions, String(env.QUEUE_PREFIX));
  const requests = connection.queue(SharedQueue.ApprovalRequests, String(env.QUEUE_PREFIX));
  return {
    app,
    url,
    db: app.get(DataSource),
    env,
    decisions,
    requests,
    decision: (approvalId, timeoutMs = 20000) =>
      eventually(async () => (await decisions.getJob(approvalId))?.data, timeoutMs),
    decisionCount: async (approvalId) =>
      (await decisions.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter(
        (j) => j.data.approvalId === approvalId,
      ).length,
    close: async () => {
      await decisions.close();
      await requests.close();
      connection.disconnect();
      await app.close();
    },
  };
}

/** Every text value in the approval schema, to prove no token or auth value is kept readable. */
export const allStoredText = (db: DataSource) => storedText(db, 'approval');

let sequence = 0;

/** A valid approval request body; `webhook` fields override the defaults. */
export function approvalRequest(
  webhookUrl: string,
  webhook: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  sequence++;
  return {
    executionId: `exec-${Date.now()}-${sequence}-${randomBytes(3).toString('hex')}`,
    stepId: 'approve-po',
    agentName: 'Procurement agent',
    webhook: {
      url: webhookUrl,
      authentication: { type: 'None' },
      timeoutSeconds: 5,
      maxRetryAttempts: 3,
      message: 'Approve PO 4711?',
      ...webhook,
    },
    stepInput: { purchaseOrder: 4711, amount: 1250.5 },
    previousResults: [{ stepId: 'draft-po', output: 'ok' }],
    ...extra,
  };
}

/** The approval-service's HTTP adapter (Fastify), built from the env its app gets, as main.ts builds it. */
export function approvalAdapter(env: Record<string, unknown>) {
  return fastifyAdapter(env as { TRUST_PROXY: string });
}

/** appUnderTest for the approval-service: the app of `env` (testEnv's by default), on its own adapter. */
export function approvalAppUnderTest(role: ProcessRole = 'all', env: Record<string, unknown> = testEnv()) {
  return appUnderTest(
    () => AppModule.forRoot({ role, env }),
    'Approval service',
    () => approvalAdapter(env),
  );
}

function lineSink(lines: string[]): NodeJS.WritableStream {
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return sink;
}
