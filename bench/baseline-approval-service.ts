/**
 * The baseline's service half for `bench/approvals.ts`: the same messages as the approval-service,
 * moved with bare Bull jobs and bare HTTP posts and no database. Takes the runtime's request jobs from
 * `approval-requests` and POSTs the same webhook body; takes the callback POST and adds the same decision
 * event to `approval-decisions` (jobId = approvalId). No validation, encryption, log or retries.
 */
import Bull from 'bull';
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';

interface RequestJob {
  tenantId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  webhook: { url: string; message?: string };
  stepInput: unknown;
  previousResults: unknown;
}

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.QUEUE_PREFIX ?? 'bench-base';
const callbackUrl = `http://127.0.0.1:${process.env.PORT}/callback`;
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });
/** The run each open callback resumes. */
const open = new Map<string, { approvalId: string; job: RequestJob }>();

// The queue names of SharedQueue, spelled out: this file runs as plain JavaScript without path aliases.
const requests = new Bull<RequestJob>('approval-requests', REDIS_URL, { prefix });
const decisions = new Bull('approval-decisions', REDIS_URL, { prefix });

void requests.process(50, async ({ data: job }) => {
  const approvalId = randomUUID();
  const callbackId = randomUUID();
  open.set(callbackId, { approvalId, job });
  await post(job.webhook.url, {
    callbackId,
    callbackToken: randomBytes(32).toString('base64url'),
    agentName: job.agentName,
    message: job.webhook.message ?? '',
    stepInput: job.stepInput,
    previousResults: job.previousResults,
    executionId: job.executionId,
    stepId: job.stepId,
    approvalId,
    callbackUrl,
    requestedAt: new Date().toISOString(),
  });
});

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.url?.startsWith('/health')) return void res.writeHead(200).end();
    const { callbackId, status, comment } = JSON.parse(body);
    const approval = open.get(callbackId);
    if (!approval) return void res.writeHead(404).end();
    open.delete(callbackId);
    const { approvalId, job } = approval;
    const decidedAt = new Date().toISOString();
    const event = {
      approvalId,
      tenantId: job.tenantId,
      executionId: job.executionId,
      stepId: job.stepId,
      outcome: status,
      comment: comment ?? null,
      decidedAt,
    };
    decisions.add('decision', event, { jobId: approvalId, removeOnComplete: false }).then(
      () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ callbackId, approvalId, executionId: job.executionId, status, decidedAt })),
      () => res.writeHead(500).end(),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  void Promise.all([requests.close(), decisions.close()]).then(() => process.exit(0));
});

function post(url: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
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
