import axios from 'axios';
import request from 'supertest';
import { ApprovalDecisionEvent } from '@app/contracts/payloads';
import { eventually, HttpPeer, isolatedDatabase, testCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/**
 * CONTRACT.md: "(executionId, stepId) is idempotent: a repeat returns the existing approval (200) and sends
 * nothing new", and the decision event is "emitted exactly once per approval".
 *
 * Commit 0b50346 republishes a decided approval's event on every repeat of its request. Bull's job id only
 * dedupes while Bull keeps the job: a consumed decision job is kept at most an hour and 1,000 deep
 * (DECISION_JOB_OPTIONS). Once it is gone, a repeat of the request hands the runtime the same decision a
 * second time. Removing the consumed job below stands for that retention (an hour, or 1,000 later decisions).
 */
describe('A repeat of a decided approval after its consumed event aged out of Redis', () => {
  let sut: ApprovalTestApp;
  let receiver: HttpPeer;
  const consumed: ApprovalDecisionEvent[] = [];

  beforeAll(async () => {
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase() });
    receiver = await new HttpPeer().start();
    // The agent runtime takes decisions off the queue.
    void sut.decisions.process('*', async (job) => {
      consumed.push(job.data);
    });
  });
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  it('sends the runtime nothing new: the decision it already consumed is not emitted a second time', async () => {
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    const body = approvalRequest(receiver.url);
    const created = await request(sut.app.getHttpServer()).post('/v1/approvals').set(runtime.auth).send(body);
    expect(created.status).toBe(201);
    const approvalId = created.body.approvalId as string;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId), 10_000);
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    await eventually(async () => {
      const res = await axios.post(
        `${sut.url}/v1/AgentExecutionWebhookApproval/callback`,
        { callbackId, callbackToken, status: 'Approved' },
        { validateStatus: () => true },
      );
      return res.status === 200;
    });

    // The runtime consumed the decision; its completed job then leaves Redis (removeOnComplete: age/count).
    await eventually(() => consumed.some((e) => e.approvalId === approvalId), 10_000);
    const job = await eventually(async () => {
      const j = await sut.decisions.getJob(approvalId);
      return j && (await j.isCompleted()) && j;
    }, 10_000);
    await job.remove();

    // The runtime repeats its request (a retried step, a replay): the contract's answer is 200, nothing new.
    const repeat = await request(sut.app.getHttpServer()).post('/v1/approvals').set(runtime.auth).send(body);
    expect(repeat.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3000));

    expect(consumed.filter((e) => e.approvalId === approvalId)).toHaveLength(1);
  }, 60_000);
});
