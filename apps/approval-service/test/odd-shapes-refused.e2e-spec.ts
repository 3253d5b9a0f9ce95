import request from 'supertest';
import { eventually, HttpPeer, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';

/** `levels` arrays, one inside the other, around a string: what a JSON parser takes, and a naive String() does not. */
const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}"x"${']'.repeat(levels)}`);

/**
 * Shapes a fuzzer sent that the validation let through or that broke before it: each is bad input, answered 400
 * with the contract's body (and, on the runtime's queue, an InvalidRequest decision), never a 500.
 */
describe('Approval requests and callbacks of odd shapes', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  const withAuthentication = (authentication: unknown) => {
    const body = approvalRequest(receiver.url);
    return { ...body, webhook: { ...body.webhook, authentication } };
  };

  it.each([[[]], [[{ type: 'None' }]], ['None']])(
    'refuses webhook.authentication %j: 400 over REST and test-webhook, InvalidRequest on the queue',
    async (authentication) => {
      const body = withAuthentication(authentication);
      const created = await http().post('/v1/approvals').set(runtime.auth).send(body);
      expect({ status: created.status, code: created.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      const tested = await http().post('/v1/approvals/test-webhook').set(runtime.auth).send({ webhook: body.webhook });
      expect({ status: tested.status, code: tested.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });

      await sut.requests.add({ ...body, tenantId: runtime.tenantId });
      const refused = await eventually(async () =>
        (await sut.decisions.getJobs(['waiting', 'completed'])).find((j) => j.data.executionId === body.executionId),
      );
      expect(refused.data).toMatchObject({ outcome: 'InvalidRequest' });
      expect(receiver.received).toHaveLength(0);
    },
  );

  it.each([[[]], ['https://example.com/hook']])('refuses webhook %j with 400', async (webhook) => {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send({ ...approvalRequest(receiver.url), webhook });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it.each([['0x10'], ['1e1'], ['5.0']])(
    'refuses limit=%s on the approvals list: decimal digits only',
    async (limit) => {
      const res = await http().get('/v1/approvals').query({ limit }).set(runtime.auth);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      await http().get('/v1/approvals').query({ limit: '16' }).set(runtime.auth).expect(200);
    },
  );

  it('answers a callback whose token is nested 5,000 deep with 400, not 500', async () => {
    const res = await http()
      .post(CALLBACK)
      .send({ callbackId: '3c3b6315-8f59-4b0b-999b-a0283dfcebd7', callbackToken: nested(5_000), status: 'Approved' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: expect.objectContaining({ statusCode: 400, code: expect.any(String), message: expect.any(String) }),
    });
  });
});
