import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import request from 'supertest';
import { eventually, HttpPeer, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';
import { REMINDER_QUEUE } from '../src/reminders/reminder.jobs';

/**
 * Intake stores the approval, then adds its jobs to Redis (deadline, first reminder round, first attempt).
 * A Redis blip between the two must not leave a stored approval without them: the queue holds the writes
 * until Redis answers, and a request sent again after REST's 503 finds its approval and adds what is missing.
 */
describe('a Redis blip while a request is taken in', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let reminderQueue: Queue;
  const http = () => request(sut.app.getHttpServer());
  const sent = (approvalId: string) =>
    receiver.received
      .filter((r) => r.headers['webhook-id'] === approvalId)
      .map((r) => JSON.parse(r.body) as { reminder?: number });
  const firstDeliveries = (approvalId: string) => sent(approvalId).filter((body) => !body.reminder);
  const reminders = (approvalId: string) => sent(approvalId).flatMap((body) => body.reminder ?? []);
  // Reminders every 3 s: by 7.5 s after the request, rounds 1 and 2 have been sent and round 3 not yet.
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    sut = await startApprovalApp({
      WEBHOOK_REMIND_MIN_SECONDS: 1,
      DATABASE_URL: await isolatedDatabase(),
    });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    reminderQueue = sut.app.get<Queue>(getQueueToken(REMINDER_QUEUE));
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  /** The next add to the reminder queue meets a dropped Redis connection, as ioredis reports it. */
  function dropNextReminderWrite() {
    const add = reminderQueue.add.bind(reminderQueue);
    jest
      .spyOn(reminderQueue, 'add')
      .mockImplementationOnce(() => Promise.reject(new Error('Connection is closed.')))
      .mockImplementation(add);
  }

  it('a queued request still gets its webhook once and its reminders', async () => {
    dropNextReminderWrite();
    const job = await sut.requests.add({
      ...approvalRequest(receiver.url, { remindAfterSeconds: 3 }),
      tenantId: runtime.tenantId,
    });
    const { approvalId } = await eventually(async () => (await sut.requests.getJob(job.id!))?.returnvalue);
    await pause(7500);
    expect(firstDeliveries(approvalId)).toHaveLength(1);
    expect(reminders(approvalId)).toEqual([1, 2]);
  }, 30000);

  it('a REST request answered 503 and sent again gets 200, its webhook once and its reminders', async () => {
    dropNextReminderWrite();
    const body = approvalRequest(receiver.url, { remindAfterSeconds: 3 });
    const first = await http().post('/v1/approvals').set(runtime.auth).send(body);
    expect(first.status).toBe(503); // "try again shortly": the client does
    const again = await http().post('/v1/approvals').set(runtime.auth).send(body).expect(200);
    const approvalId = again.body.approvalId as string;
    await pause(7500);
    expect(firstDeliveries(approvalId)).toHaveLength(1);
    expect(reminders(approvalId)).toEqual([1, 2]);
  }, 30000);

  it('a request repeated while its reminders run sends no webhook or reminder twice', async () => {
    const body = approvalRequest(receiver.url, { remindAfterSeconds: 3 });
    const { approvalId } = (await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201)).body;
    await eventually(() => reminders(approvalId).length === 1);
    await http().post('/v1/approvals').set(runtime.auth).send(body).expect(200);
    await pause(4500);
    expect(firstDeliveries(approvalId)).toHaveLength(1);
    expect(reminders(approvalId)).toEqual([1, 2]);
  }, 30000);
});
