import { getQueueToken } from '@nestjs/bull';
import type { ServerResponse } from 'node:http';
import type { Queue } from 'bull';
import request from 'supertest';
import { ApprovalRequestJob } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { eventually, HttpPeer, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';
import { DELIVERY_QUEUE } from '../src/delivery/delivery.jobs';

/**
 * A first attempt that intake handed to the delivery queue (its tenant's receiver was slow) and that waits
 * there while the runtime cancels the approval: the receiver never hears of it.
 */
describe('A Cancel that arrives before the first attempt leaves the queue', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let runtimeQueue: ApprovalRuntimeClient;
  let receiver: HttpPeer;
  const held: ServerResponse[] = [];
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
    runtimeQueue = new ApprovalRuntimeClient(String(sut.env.REDIS_URL), { prefix: String(sut.env.QUEUE_PREFIX) });
    // The first approval's receiver holds its answer; every other is answered at once.
    receiver = await new HttpPeer((req, res) => {
      if (JSON.parse(req.body).executionId.startsWith('slow-')) held.push(res);
      else res.writeHead(202).end();
    }).start();
  });

  afterAll(async () => {
    held.forEach((res) => res.writeHead(202).end());
    await receiver?.stop();
    await runtimeQueue?.close();
    await sut?.close();
  });

  /** An approval requested through the runtime's queue, as intake takes it in; its id once stored. */
  async function requestApproval(executionId = `exec-${Date.now()}`) {
    const body = { ...approvalRequest(receiver.url, {}, { executionId }), tenantId: runtime.tenantId };
    await runtimeQueue.request(body as ApprovalRequestJob);
    return eventually(async () => {
      const [row] = await sut.db.query(`SELECT id FROM approval.approvals WHERE "executionId" = $1`, [executionId]);
      return row?.id as string | undefined;
    });
  }

  it('sends nothing for it', async () => {
    await requestApproval(`slow-${Date.now()}`);
    await eventually(() => held.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 500)); // intake has let the slow attempt go on alone
    const queue = sut.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
    await queue.pause(true, true); // this worker is slow to reach the queue's next job

    const approvalId = await requestApproval();
    await eventually(async () => (await queue.getWaitingCount()) > 0);
    await http().post(`/v1/approvals/${approvalId}/cancel`).set(runtime.auth).expect(200);
    await queue.resume(true);

    await eventually(async () => {
      const { waiting, active, delayed } = await queue.getJobCounts();
      return waiting + active === 0 && delayed <= 1; // the slow first attempt's safety net stays delayed
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === approvalId)).toEqual([]);
    const approval = (await http().get(`/v1/approvals/${approvalId}`).set(runtime.auth).expect(200)).body;
    expect(approval.status).toBe('Cancelled');
  });
});
