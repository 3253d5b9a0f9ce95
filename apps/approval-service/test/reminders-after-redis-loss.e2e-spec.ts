import Redis from 'ioredis';
import request from 'supertest';
import { eventually, HttpPeer, OwnRedis, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest } from './support/approval-app';
import { OnOwnRedis, onOwnRedis } from './support/on-own-redis';

const INTERVAL_MS = 2000;
const SWEEP_MS = 500;
/** What a user would accept: the lost round's reminder within a few intervals and a sweep of Redis losing it. */
const REMINDED_WITHIN_MS = 4 * INTERVAL_MS + SWEEP_MS;

/**
 * A Redis without persistence restarts: every waiting reminder round is gone with its data. The workers' sweep
 * finds the approvals whose next round is overdue and adds it again, so the reminders go on, each sent once.
 */
describe('Reminders after Redis restarted without its data', () => {
  let stack: OnOwnRedis;
  let redis: OwnRedis;
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const reminders = (approvalId: string) =>
    receiver.received
      .filter((r) => r.headers['webhook-id'] === approvalId)
      .flatMap((r) => (JSON.parse(r.body) as { reminder?: number }).reminder ?? []);
  const reminderAt = (approvalId: string, n: number) =>
    receiver.received.find((r) => r.headers['webhook-id'] === approvalId && JSON.parse(r.body).reminder === n)?.at;

  beforeAll(async () => {
    stack = await onOwnRedis({ WEBHOOK_REMIND_MIN_SECONDS: 1, REMINDER_SWEEP_MS: SWEEP_MS }, { keepsData: false });
    ({ redis, sut, receiver } = stack);
    runtime = await testCaller({ roles: ['agent-runtime'] });
  }, 60_000);
  afterAll(() => stack?.close());

  /** An approval delivered and reminded once: its round 2 waits in Redis. */
  async function remindedOnce(): Promise<string> {
    const body = approvalRequest(receiver.url, { remindAfterSeconds: INTERVAL_MS / 1000 });
    const { approvalId } = (await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201)).body;
    await eventually(() => reminders(approvalId).includes(1), 10_000);
    return approvalId as string;
  }

  async function loseRedisData(): Promise<number> {
    await redis.stop();
    await redis.start();
    return Date.now();
  }

  async function expectRemindersGoOn(approvalId: string, lostAt: number): Promise<void> {
    const next = await eventually(() => reminderAt(approvalId, 2), REMINDED_WITHIN_MS + 5000);
    expect(next - lostAt).toBeLessThan(REMINDED_WITHIN_MS);
    await eventually(() => reminders(approvalId).includes(3), 2 * INTERVAL_MS + 3000);
    await http().post(`/v1/approvals/${approvalId}/cancel`).set(runtime.auth).expect(200);
    // Each round once: a lost round is added again, never sent again.
    expect(reminders(approvalId)).toEqual([...new Set(reminders(approvalId))].sort((a, b) => a - b));
  }

  it('sends the next reminder once the lost round is overdue, and the rounds after it', async () => {
    const approvalId = await remindedOnce();
    const lostAt = await loseRedisData();
    await expectRemindersGoOn(approvalId, lostAt);
  }, 40_000);

  it('adds a lost round again whose job id the emptied Redis holds only as a husk', async () => {
    const approvalId = await remindedOnce();
    const lostAt = await loseRedisData();
    const client = new Redis(redis.url);
    try {
      // A worker's take of round 2 resent to the emptied Redis: Bull's moveToActive writes processedOn under
      // the id, and the worker runs what it reads back, a job without name, data or options.
      const queue = `${String(sut.env.QUEUE_PREFIX)}:approval-reminders`;
      const id = `${approvalId}:reminder-2`;
      await client.hset(`${queue}:${id}`, 'processedOn', Date.now());
      await client.lpush(`${queue}:wait`, id);
      // Its empty data fails validation: Bull keeps it as a failed job, which would make it ignore the add.
      await eventually(async () => (await client.zscore(`${queue}:failed`, id)) !== null, 5000);
      expect(await client.hget(`${queue}:${id}`, 'failedReason')).toContain('Invalid ReminderJob');
      expect(await client.hexists(`${queue}:${id}`, 'data')).toBe(0);
    } finally {
      client.disconnect();
    }
    await expectRemindersGoOn(approvalId, lostAt);
  }, 40_000);
});
