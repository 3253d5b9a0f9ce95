import type { Queue } from 'bull';
import { getQueueToken } from '@nestjs/bull';
import request from 'supertest';
import { after, HttpPeer, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { DELIVERY_QUEUE } from '../src/delivery/delivery.jobs';
import { DELIVERY_STALLED_OUT } from '../src/delivery/delivery.service';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';
import { stallUntilFailed } from './support/stalled-jobs';

describe('A delivery attempt that stops every worker that sends it', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let queue: Queue;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;

  beforeAll(async () => {
    sut = await startApprovalApp({
      DATABASE_URL: await isolatedDatabase(),
      // One slot, reserved: intake sends nothing itself, every first attempt is a job.
      DELIVERY_SLOTS: 1,
      QUEUE_STALLED_INTERVAL_MS: 500,
      // The sweep runs often: it must not add the failed attempt's job again. Past the stalls only: a sweep during
      // them could add it again before its attempt is logged, and a loaded machine makes that moment long.
      DELIVERY_SWEEP_MS: 200,
      DELIVERY_STRANDED_AFTER_MS: 8000,
    });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    queue = sut.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
    // Its worker settled in its blocking read: pausing it then cuts nothing short that Bull does not expect.
    await after(1000);
  });
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  it('ends DeliveryFailed with the reason, its decision published once, rather than sent again and again', async () => {
    // Held with its blocking reads cut short: a read already waiting would take the job when it is back.
    await queue.pause(true, true);
    let approvalId: string;
    try {
      const body = approvalRequest(receiver.url, { maxRetryAttempts: 0, timeoutSeconds: 1 });
      const created = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201);
      approvalId = created.body.approvalId;
      expect(await stallUntilFailed(queue, `${approvalId}:1`)).toBe(3);
    } finally {
      await queue.resume(true);
    }

    const decision = await sut.decision(approvalId, 15_000);
    expect(decision).toMatchObject({ approvalId, outcome: 'DeliveryFailed' });
    const approval = await approvalOf(approvalId);
    expect(approval.status).toBe('DeliveryFailed');
    expect(approval.log).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'DeliveryAttempt', attempt: 1, httpStatus: null, error: DELIVERY_STALLED_OUT }),
      ]),
    );

    // Sweeps come and go past the approval's stranded time: nothing is added again, sent or published.
    await after(10_000);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === approvalId)).toHaveLength(0);
    // Failed as Bull left it, or gone: a sweep in the moment before the attempt was logged re-added it, and it ended
    // finding the attempt logged. Either way nothing of it waits or runs.
    const job = await queue.getJob(`${approvalId}:1`);
    expect(job ? await job.getState() : 'gone').toMatch(/^(failed|completed|gone)$/);
    expect(await sut.decisionCount(approvalId)).toBe(1);
    expect(
      (await approvalOf(approvalId)).log.filter((e: { type: string }) => e.type === 'DeliveryAttempt'),
    ).toHaveLength(1);
  }, 60_000);
});
