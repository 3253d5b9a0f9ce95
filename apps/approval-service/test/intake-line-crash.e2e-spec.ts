import type { ChildProcess } from 'node:child_process';
import { eventually, HttpPeer, killChild, startChildApp } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const RUNNER = 'apps/approval-service/test/support/run-approval.ts';

/**
 * While intake drains a backlog, a request's job completes once its approval is stored, and its first
 * attempt waits in the worker's memory for a lane (docs/approval-performance.md, "A backlog in the request
 * queue"). A worker that dies then leaves those approvals Pending with nothing sent: the stalled-delivery
 * sweeper sends them, once.
 */
describe('First attempts waiting in the line of a worker that dies', () => {
  let api: ApprovalTestApp;
  let receiver: HttpPeer;
  let worker: ChildProcess | undefined;

  afterAll(async () => {
    if (worker) await killChild(worker);
    await receiver?.stop();
    await api?.close();
  });

  it('are sent by the sweeper of the next worker, each once, though their request jobs had completed', async () => {
    const env = { QUEUE_LOCK_DURATION_MS: 3000, DELIVERY_STRANDED_AFTER_MS: 4000, DELIVERY_SWEEP_MS: 500 };
    api = await startApprovalApp(env, 'api');
    receiver = await new HttpPeer().start();
    worker = await startChildApp(RUNNER, api.env, 'worker');

    const count = 2000;
    const jobs = Array.from({ length: count }, () => {
      const data = { ...approvalRequest(receiver.url, { timeoutSeconds: 2 }), tenantId: 'line-crash' };
      return { data, opts: { jobId: `${data.tenantId}:${data.executionId}:${data.stepId}` } };
    });
    await api.requests.addBulk(jobs);
    // Requests taken and done whose first attempts have not reached the receiver: they wait in the line.
    await eventually(async () => (await api.requests.getCompletedCount()) - receiver.received.length >= 300, 60_000);
    await killChild(worker, 'SIGKILL');
    worker = undefined;
    const completed = await api.requests.getCompletedCount();
    const sentBefore = new Set(receiver.received.map(approvalIdOf));
    console.log(`killed with ${completed} requests done and ${sentBefore.size} first attempts received`);
    // Attempts in flight at the kill may still arrive after the look above: most of the 300 were only in the line.
    expect(completed - sentBefore.size).toBeGreaterThanOrEqual(200);

    worker = await startChildApp(RUNNER, api.env, 'worker');
    await eventually(async () => {
      const [row] = await api.db.query(
        `SELECT count(*)::int AS n FROM approval.approvals WHERE "tenantId" = 'line-crash' AND status = 'AwaitingDecision'`,
      );
      return row.n === count;
    }, 90_000);
    const received = receiver.received.map(approvalIdOf);
    expect(new Set(received).size).toBe(count);
    // Sent twice: only attempts in flight when the worker died (at most its 8 lanes, and a few not yet recorded).
    expect(received.length - count).toBeLessThanOrEqual(16);
  }, 150_000);
});

function approvalIdOf(request: { body: string }): string {
  return (JSON.parse(request.body) as { approvalId: string }).approvalId;
}
