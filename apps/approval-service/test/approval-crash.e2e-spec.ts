import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { eventually, HttpPeer, killChild, startChildApp, testCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const N = 200;

describe('Approval durability', () => {
  let api: ApprovalTestApp;
  let receiver: HttpPeer;
  let worker: ChildProcess | undefined;

  /** The receiver's side of a delivery: 200, then the callback that approves it. */
  const answerAndApprove = async (body: string, res: ServerResponse) => {
    res.writeHead(200).end();
    const { callbackId, callbackToken } = JSON.parse(body);
    await request(api.app.getHttpServer())
      .post('/v1/AgentExecutionWebhookApproval/callback')
      .send({ callbackId, callbackToken, status: 'Approved' });
  };

  afterAll(async () => {
    if (worker) await killChild(worker);
    await receiver?.stop();
    await api?.close();
  });

  it(`loses and doubles nothing when the worker is killed while ${N} approvals are in delivery`, async () => {
    // The API runs here; deliveries run in a separate worker process that we kill.
    api = await startApprovalApp({ QUEUE_LOCK_DURATION_MS: 3000 }, 'api');
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer(async (req, res) => {
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 200));
      await answerAndApprove(req.body, res);
    }).start();
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const res = await request(api.app.getHttpServer())
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(receiver.url, { maxRetryAttempts: 5 }))
        .expect(201);
      ids.push(res.body.approvalId);
    }
    // All 200 wait in the queue; the worker starts now and is killed while deliveries are in flight.
    worker = await startChildApp('apps/approval-service/test/support/run-approval.ts', api.env, 'worker');
    await eventually(() => receiver.received.length >= 30, 60000);
    await killChild(worker, 'SIGKILL');
    const deliveredBeforeCrash = receiver.received.length;
    expect(deliveredBeforeCrash).toBeLessThan(N);

    worker = await startChildApp('apps/approval-service/test/support/run-approval.ts', api.env, 'worker');
    const statuses = await eventually(async () => {
      const rows: Array<{ status: string }> = await api.db.query(
        'SELECT status FROM approval.approvals WHERE id = ANY($1::uuid[])',
        [ids],
      );
      return rows.every((r) => r.status === 'Approved') && rows;
    }, 90000);
    expect(statuses).toHaveLength(N);

    const events = await eventually(async () => {
      const jobs = await api.decisions.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed']);
      const mine = jobs.filter((j) => ids.includes(j.data.approvalId));
      return mine.length >= N && mine;
    }, 30000);
    const perApproval = new Map<string, number>();
    for (const job of events) perApproval.set(job.data.approvalId, (perApproval.get(job.data.approvalId) ?? 0) + 1);
    expect(perApproval.size).toBe(N);
    expect([...perApproval.values()].every((n) => n === 1)).toBe(true);
    expect(events.every((j) => j.data.outcome === 'Approved')).toBe(true);
    const [{ n }] = await api.db.query(
      'SELECT count(*)::int AS n FROM approval.decision_outbox WHERE "approvalId" = ANY($1::text[])',
      [ids],
    );
    expect(n).toBe(N);
  }, 180000);

  it('sends again, after its deadline, a first attempt that a killed worker sent itself and never recorded', async () => {
    if (worker) await killChild(worker);
    await receiver?.stop();
    await api?.close();
    api = await startApprovalApp({ QUEUE_LOCK_DURATION_MS: 3000, DELIVERY_STRANDED_AFTER_MS: 2000 }, 'api');
    const { tenantId } = await testCaller({ roles: ['agent-runtime'] });
    let answering = false;
    receiver = await new HttpPeer(async (req, res) => {
      if (answering) await answerAndApprove(req.body, res); // else held open: the worker dies with it in flight
    }).start();
    worker = await startChildApp('apps/approval-service/test/support/run-approval.ts', api.env, 'worker');
    // The worker must die within the attempts' deadline: an attempt that times out first is recorded (and,
    // with no retry, ends in DeliveryFailed), which a loaded machine once made of a 2 s deadline.
    const timeoutSeconds = 10;
    const bodies = Array.from({ length: 5 }, () => ({
      ...approvalRequest(receiver.url, { timeoutSeconds, maxRetryAttempts: 0 }),
      tenantId,
    }));
    const requestedAt = Date.now();
    const jobs = await Promise.all(bodies.map((body) => api.requests.add(body)));
    await eventually(() => receiver.received.length >= bodies.length, 20000);
    // Intake has let them go on alone (and left their delayed jobs) before the worker dies.
    await eventually(async () => (await Promise.all(jobs.map((j) => j.getState()))).every((s) => s === 'completed'));
    await killChild(worker, 'SIGKILL');
    expect(Date.now() - requestedAt).toBeLessThan(timeoutSeconds * 1000);
    answering = true;
    worker = await startChildApp('apps/approval-service/test/support/run-approval.ts', api.env, 'worker');

    const ids = (await Promise.all(jobs.map((j) => j.finished()))).map((r: { approvalId: string }) => r.approvalId);
    const rows = await eventually(async () => {
      const found: Array<{ status: string; logEntries: number }> = await api.db.query(
        `SELECT status, (SELECT count(*)::int FROM approval.approval_log l WHERE l."approvalId" = a.id) AS "logEntries"
         FROM approval.approvals a WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      if (found.length === ids.length && found.every((r) => r.status === 'Approved')) return found;
      // What a timeout reports: where each approval stands, and how many webhooks the receiver got.
      throw new Error(`approvals ${JSON.stringify(found)}; webhooks received ${receiver.received.length}`);
    }, 100000); // the delayed jobs are due 12 s after the sends; 20–35 s in all at load 7
    expect(rows).toHaveLength(bodies.length);
    expect(receiver.received).toHaveLength(2 * bodies.length);
    for (const id of ids) {
      await api.decision(id); // published by the outbox relay shortly after the status is stored
      expect(await api.decisionCount(id)).toBe(1);
    }
  }, 160000);
});
