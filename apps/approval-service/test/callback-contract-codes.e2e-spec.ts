import request from 'supertest';
import { HttpPeer, eventually, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';

/**
 * CONTRACT.md, "The callback": 400 VALIDATION_FAILED is for a missing field or a status other than exactly
 * Approved / Denied; an unknown callbackId is 404 and a token that does not match is 401, whatever their length.
 */
describe('Callback answers by the contract', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;

  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  async function delivered() {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201);
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === res.body.approvalId));
    await eventually(async () => (await approvalOf(res.body.approvalId)).status === 'AwaitingDecision');
    const { callbackId, callbackToken } = JSON.parse(hook.body) as { callbackId: string; callbackToken: string };
    return { approvalId: res.body.approvalId as string, callbackId, callbackToken };
  }

  it('401 CALLBACK_TOKEN_INVALID: a token that does not match, however long, is recorded as CallbackRejected and changes nothing', async () => {
    const a = await delivered();
    const res = await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId, callbackToken: `${a.callbackToken}${'x'.repeat(300)}`, status: 'Approved' });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'CALLBACK_TOKEN_INVALID' });
    const approval = await approvalOf(a.approvalId);
    expect(approval.status).toBe('AwaitingDecision');
    expect(approval.log.at(-1)).toMatchObject({ type: 'CallbackRejected' });
    await http()
      .post(CALLBACK)
      .send({ callbackId: a.callbackId, callbackToken: a.callbackToken, status: 'Approved' })
      .expect(200);
  });

  it('404 CALLBACK_NOT_FOUND: an unknown callbackId, however long', async () => {
    const res = await http()
      .post(CALLBACK)
      .send({ callbackId: 'c'.repeat(300), callbackToken: 'x', status: 'Approved' });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'CALLBACK_NOT_FOUND' });
  });
});
