import { Logger, LoggerService } from '@nestjs/common';
import axios from 'axios';
import { ApprovalDecisionEvent, ApprovalRequestJob } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { after, eventually, HttpPeer, OwnPostgres, startOwnPostgres } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const N = 600;

describe('Approval service through PostgreSQL restarts', () => {
  let postgres: OwnPostgres;
  let service: ApprovalTestApp;
  let receiver: HttpPeer;
  let runtime: ApprovalRuntimeClient;
  const decisions = new Map<string, ApprovalDecisionEvent[]>();
  const warnings: string[] = [];
  const callbackAnswers: number[] = [];
  const captor: LoggerService = {
    log: () => undefined,
    error: () => undefined,
    warn: (_fields: unknown, message?: unknown) => void warnings.push(String(message)),
  };

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    service = await startApprovalApp({ DATABASE_URL: postgres.url });
    // A receiver as the contract expects one: answers 200, then calls back, and tries again while the service cannot answer.
    receiver = await new HttpPeer(async (req, res) => {
      res.writeHead(200).end();
      const { callbackId, callbackToken } = JSON.parse(req.body);
      await eventually(
        async () => {
          const answer = await axios.post(
            `${service.url}/v1/AgentExecutionWebhookApproval/callback`,
            { callbackId, callbackToken, status: 'Approved' },
            { validateStatus: () => true, timeout: 30_000 },
          );
          callbackAnswers.push(answer.status);
          return answer.status === 200;
        },
        60_000,
        250,
      );
    }).start();
    runtime = new ApprovalRuntimeClient(String(service.env.REDIS_URL), {
      prefix: String(service.env.QUEUE_PREFIX),
      onDecision: (event) =>
        void decisions.set(event.executionId, [...(decisions.get(event.executionId) ?? []), event]),
    });
  }, 60_000);

  afterAll(async () => {
    Logger.overrideLogger(false);
    await runtime?.close();
    await receiver?.stop();
    await service?.close();
    await postgres?.destroy();
  });

  it(`decides each of ${N} queued requests exactly once when PostgreSQL stops twice mid-flood`, async () => {
    Logger.overrideLogger(captor);
    const requests = Array.from({ length: N }, () => ({
      ...approvalRequest(receiver.url, { timeoutSeconds: 10, maxRetryAttempts: 3 }),
      tenantId: 'tenant-outage',
    }));
    const flood = (async () => {
      for (const request of requests) await runtime.request(request as ApprovalRequestJob);
    })();
    for (const pause of [1300, 1500]) {
      await after(pause);
      await postgres.stop();
      await after(3000);
      await postgres.start();
    }
    await flood;

    await eventually(() => decisions.size >= N, 60_000, 250).catch(() => undefined);
    await after(1000); // a doubled event would show up now
    const missing = requests.filter((r) => !decisions.has(r.executionId)).length;
    const doubled = [...decisions.values()].filter((events) => events.length > 1).length;
    const outcomes = [...decisions.values()].flat().map((e) => e.outcome);
    expect({ missing, doubled, invalid: outcomes.filter((o) => o === 'InvalidRequest').length }).toEqual({
      missing: 0,
      doubled: 0,
      invalid: 0,
    });
    expect(outcomes.every((o) => o === 'Approved')).toBe(true);
    // A callback that meets a short outage waits for the database: none is answered with an error.
    expect(callbackAnswers.filter((status) => status !== 200)).toEqual([]);
    // Each outage is told once when it starts and once when it ends, however many jobs it held.
    const outageLines = warnings.filter((w) => /unreachable|reachable again/.test(w));
    expect(outageLines.map((w) => (/unreachable/.test(w) ? 'start' : 'end'))).toEqual(['start', 'end', 'start', 'end']);
  }, 120_000);
});
