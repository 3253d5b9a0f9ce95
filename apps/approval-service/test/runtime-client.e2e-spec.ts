import request from 'supertest';
import { ApprovalRequestJob } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { HttpPeer } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

describe(ApprovalRuntimeClient.name, () => {
  let sut: ApprovalRuntimeClient;
  let service: ApprovalTestApp;
  let receiver: HttpPeer;
  const authorizationOf = new Map<string, unknown>();

  beforeAll(async () => {
    service = await startApprovalApp();
    receiver = await new HttpPeer(async (req, res) => {
      res.writeHead(200).end();
      const { callbackId, callbackToken, executionId } = JSON.parse(req.body);
      authorizationOf.set(executionId, req.headers.authorization);
      await request(service.app.getHttpServer())
        .post('/v1/AgentExecutionWebhookApproval/callback')
        .send({ callbackId, callbackToken, status: 'Denied', comment: 'not this week' });
    }).start();
    sut = new ApprovalRuntimeClient(String(service.env.REDIS_URL), { prefix: String(service.env.QUEUE_PREFIX) });
  });
  afterAll(async () => {
    await sut.close();
    await receiver.stop();
    await service.close();
  });

  it('enqueues a request and resumes with its decision', async () => {
    const body = { ...approvalRequest(receiver.url), tenantId: 'tenant-runtime' };
    const decision = sut.awaitDecision('tenant-runtime', body.executionId, body.stepId, 20000);
    await sut.request(body as ApprovalRequestJob);
    await expect(decision).resolves.toMatchObject({
      outcome: 'Denied',
      comment: 'not this week',
      executionId: body.executionId,
      stepId: 'approve-po',
    });
  });

  // The queue's first attempt sends with the credentials in hand; the HTTP intake's reads them back sealed.
  it('sends the configured authentication on the first attempt of a queued request', async () => {
    const body = {
      ...approvalRequest(receiver.url, {
        authentication: { type: 'BasicAuth', username: 'erp', password: 's3cr3t:x' },
      }),
      tenantId: 'tenant-runtime',
    };
    const decision = sut.awaitDecision('tenant-runtime', body.executionId, body.stepId, 20000);
    await sut.request(body as ApprovalRequestJob);
    await expect(decision).resolves.toMatchObject({ outcome: 'Denied' });
    expect(authorizationOf.get(body.executionId)).toBe(`Basic ${Buffer.from('erp:s3cr3t:x').toString('base64')}`);
  });
});
