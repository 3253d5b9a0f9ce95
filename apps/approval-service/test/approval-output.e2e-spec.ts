import request from 'supertest';
import { SharedQueue } from '@app/contracts/payloads';
import { HttpPeer, eventually, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';

describe('A decision that carries data (callback output)', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;

  beforeAll(async () => {
    // A database of its own: another test file's relay would publish this file's leftovers under its prefix.
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase() });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  async function delivered() {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201);
    const approvalId: string = res.body.approvalId;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    return { approvalId, callbackId: callbackId as string, callbackToken: callbackToken as string };
  }

  /** A callback body sent as raw JSON, so keys such as `__proto__` reach the service as they were written. */
  const callback = (raw: string) => http().post(CALLBACK).set('Content-Type', 'application/json').send(raw);

  it('keeps the output with the approval and carries it in the decision event, keys such as constructor as plain data', async () => {
    const a = await delivered();
    const output =
      '{"changes":{"amount":1000,"note":"ä ✓"},"constructor":{"prototype":{"polluted":true}},"__proto__":{"polluted":true}}';
    const body = `{"callbackId":"${a.callbackId}","callbackToken":"${a.callbackToken}","status":"Approved","output":${output}}`;
    const first = await callback(body).expect(200);
    expect(first.body).toMatchObject({ approvalId: a.approvalId, status: 'Approved' });

    const event = await sut.decision(a.approvalId);
    expect(event.output).toEqual(JSON.parse(output));
    expect(event).toMatchObject({ outcome: 'Approved', output: { changes: { amount: 1000, note: 'ä ✓' } } });
    const approval = await approvalOf(a.approvalId);
    expect(approval.output).toEqual(event.output);
    expect(Object.keys(approval.output).sort()).toEqual(['__proto__', 'changes', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // The same callback again: the same answer, the first output stands, still one event.
    expect((await callback(body).expect(200)).body).toEqual(first.body);
    const other = `{"callbackId":"${a.callbackId}","callbackToken":"${a.callbackToken}","status":"Approved","output":{"changes":null}}`;
    expect((await callback(other).expect(200)).body).toEqual(first.body);
    expect((await approvalOf(a.approvalId)).output).toEqual(approval.output);
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  });

  it('carries output null when the callback sends none, and for a cancel', async () => {
    const a = await delivered();
    await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Denied' })
      .expect(200);
    expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Denied', output: null });
    expect((await approvalOf(a.approvalId)).output).toBeNull();

    const b = await delivered();
    await http().post(`/v1/approvals/${b.approvalId}/cancel`).set(runtime.auth).expect(200);
    expect(await sut.decision(b.approvalId)).toMatchObject({ outcome: 'Cancelled', output: null });
  });

  it('refuses an output that is not a JSON object, holds U+0000, or weighs more than 64 KiB; nothing is decided', async () => {
    const a = await delivered();
    const send = (output: string) =>
      callback(
        `{"callbackId":"${a.callbackId}","callbackToken":"${a.callbackToken}","status":"Approved","output":${output}}`,
      );
    for (const output of ['[1,2]', '"approved with changes"', '42', '{"a":"x\\u0000y"}', '{"a\\u0000":1}']) {
      const res = await send(output).expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({})] });
      expect(JSON.stringify(res.body.details)).toContain('output');
    }
    const big = JSON.stringify({ text: 'x'.repeat(64 * 1024) });
    const tooBig = await send(big).expect(400);
    expect(tooBig.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'output' }] });
    expect(tooBig.body.message).toMatch(/at most 65536 bytes \(64 KiB\).*it is \d+ bytes/);
    // Just under the bound is taken.
    const fits = JSON.stringify({ text: 'x'.repeat(64 * 1024 - 20) });
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(64 * 1024);
    expect((await approvalOf(a.approvalId)).status).toBe('AwaitingDecision');
    await send(fits).expect(200);
    expect((await sut.decision(a.approvalId)).output).toEqual(JSON.parse(fits));
  });

  it('publishes the output from the outbox when the decision could not be published at once', async () => {
    const a = await delivered();
    // Every add to approval-decisions fails in Redis (its job counter is not a number).
    const redis = await sut.decisions.client;
    const counter = `${String(sut.env.QUEUE_PREFIX)}:${SharedQueue.ApprovalDecisions}:id`;
    await redis.set(counter, 'unpublishable');
    try {
      await http()
        .post(CALLBACK)
        .send({
          callbackId: a.callbackId,
          callbackToken: a.callbackToken,
          status: 'Approved',
          output: { po: 4711, approvedAmount: 900 },
        })
        .expect(200);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await sut.decisionCount(a.approvalId)).toBe(0);
    } finally {
      await redis.del(counter);
    }
    expect(await sut.decision(a.approvalId, 30000)).toMatchObject({
      outcome: 'Approved',
      output: { po: 4711, approvedAmount: 900 },
    });
  }, 60000);
});
