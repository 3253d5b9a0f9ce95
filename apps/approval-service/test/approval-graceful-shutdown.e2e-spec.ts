import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { eventually, HttpPeer, testCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

describe('An approval-service that shuts down with an attempt in flight', () => {
  let first: ApprovalTestApp | undefined;
  let second: ApprovalTestApp | undefined;
  let receiver: HttpPeer;

  afterAll(async () => {
    await receiver?.stop();
    await first?.close().catch(() => undefined);
    await second?.close();
  });

  it('leaves the attempt unrecorded, and the next process sends it again: a deploy fails no delivery', async () => {
    const env = { QUEUE_LOCK_DURATION_MS: 3000, DELIVERY_STRANDED_AFTER_MS: 2000 };
    first = await startApprovalApp(env);
    const { tenantId } = await testCaller({ roles: ['agent-runtime'] });
    let answering = false;
    receiver = await new HttpPeer(async (req, res: ServerResponse) => {
      if (!answering) return; // held open: the process shuts down with it in flight
      res.writeHead(200).end();
      const { callbackId, callbackToken } = JSON.parse(req.body);
      const next = await eventually(() => second, 20_000); // a retry may come while the next process starts
      await request(next.app.getHttpServer())
        .post('/v1/AgentExecutionWebhookApproval/callback')
        .send({ callbackId, callbackToken, status: 'Approved' });
    }).start();
    const requested = async () => {
      const job = await first!.requests.add({
        ...approvalRequest(receiver.url, { timeoutSeconds: 10, maxRetryAttempts: 0 }),
        tenantId,
      });
      return ((await job.finished()) as { approvalId: string }).approvalId;
    };
    // The first is sent from intake and goes on alone; its tenant's next goes through the delivery queue.
    const ids = [await requested()];
    await receiver.waitForRequests(1, 10_000);
    ids.push(await requested());
    await receiver.waitForRequests(2, 10_000);

    const closing = first;
    first = undefined;
    await closing.close(); // what SIGTERM does (enableShutdownHooks)
    expect(Date.now() - receiver.received[0].at).toBeLessThan(10_000); // before the attempts' own deadline
    answering = true; // the next process's sends are answered (a queued attempt's retry comes within seconds)
    second = await startApprovalApp({ ...env, QUEUE_PREFIX: closing.env.QUEUE_PREFIX });
    const statuses = async (): Promise<string[]> =>
      (await second!.db.query('SELECT id, status FROM approval.approvals WHERE id = ANY($1::uuid[])', [ids]))
        .sort((a: { id: string }, b: { id: string }) => ids.indexOf(a.id) - ids.indexOf(b.id))
        .map((row: { status: string }) => row.status);
    // Neither was recorded as failed by the shutdown (the code before ended both DeliveryFailed here).
    // The next process may already have sent one again and had its 200 (AwaitingDecision) by now.
    const notFailed = expect.stringMatching(/^(Pending|AwaitingDecision|Approved)$/);
    expect(await statuses()).toEqual([notFailed, notFailed]);

    await eventually(async () => {
      const now = await statuses();
      if (now.every((status) => status === 'Approved')) return true;
      const sends = receiver.received.map((r) => `${ids.indexOf(JSON.parse(r.body).approvalId)}@${r.at}`);
      throw new Error(`statuses ${JSON.stringify(now)}; webhooks (approval@time) ${sends.join(' ')}`);
    }, 40_000);
    expect(receiver.received).toHaveLength(4);
    for (const id of ids) {
      await second.decision(id); // published by the outbox relay shortly after the status is stored
      expect(await second.decisionCount(id)).toBe(1);
    }
  }, 90_000);
});
