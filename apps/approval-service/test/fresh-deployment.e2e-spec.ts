import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import {
  answersWithoutToken,
  createHttpApp,
  freshDeploymentEnv,
  HttpPeer,
  listenOnLoopback,
  corsHeadersToForeignOrigin,
  tokensNotRefused,
  testCaller,
} from '@app/testing';
import { AppModule } from '../src/app.module';
import { approvalAdapter, approvalRequest } from './support/approval-app';

/** What a caller without a token may reach: the probes, the callback and the decision pages, nothing else. */
const PUBLIC_OPERATIONS = [
  'GET /health/live',
  'GET /health/ready',
  'POST /v1/AgentExecutionWebhookApproval/callback',
  'GET /v1/decision-pages/{token}',
  'POST /v1/decision-pages/{token}',
];

/**
 * "Safe by default": the approval-service started with only what a fresh production deployment must give
 * (deploy/kubernetes/secrets/approval-service.env.example) has everything that can be opened closed.
 */
describe('Approval-service on a fresh deployment', () => {
  let app: INestApplication;
  let url: string;
  let receiver: HttpPeer;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    const env = freshDeploymentEnv();
    app = await createHttpApp(AppModule.forRoot({ role: 'all', env }), 'Approval service', approvalAdapter(env));
    url = await listenOnLoopback(app);
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await app?.close();
  });

  it('answers a caller without a token 401 on every operation but the probes, the callback and the decision pages', async () => {
    const answers = await answersWithoutToken(app);
    expect(Object.keys(answers).length).toBeGreaterThan(8);
    const refused = Object.entries(answers).filter(([operation]) => !PUBLIC_OPERATIONS.includes(operation));
    expect(refused.filter(([, status]) => status !== 401)).toEqual([]);
    expect(Object.keys(answers)).toEqual(expect.arrayContaining(PUBLIC_OPERATIONS));
    await http().get('/metrics').expect(401);
    await http().get('/admin/queues').expect(401);
    const admin = await testCaller({ roles: ['admin'] });
    await http().get('/admin/queues/api/queues').set(admin.auth).expect(403);
  });

  it('sends no CORS header to any origin', async () => {
    expect(await corsHeadersToForeignOrigin(app, '/v1/approvals')).toEqual([]);
  });

  it.each(Object.entries({ admin: ['admin'], 'no role': [] as string[] }))(
    'refuses every malformed, unsigned, expired or unbound token (%s claims)',
    async (_name, roles) => {
      const caller = await testCaller({ roles });
      expect(await tokensNotRefused(app, '/v1/approvals', { tenant: caller.tenantId, roles })).toEqual([]);
      await http().get('/v1/approvals').set(caller.auth).expect(200);
    },
  );

  it('gives a token without roles the reading of its tenant, never the requesting of approvals', async () => {
    const reader = await testCaller();
    await http().get('/v1/approvals').set(reader.auth).expect(200);
    await http().post('/v1/approvals').set(reader.auth).send(approvalRequest('https://hooks.example.com')).expect(403);
  });

  it.each([
    ['plain http', (peer: string) => `${peer}/hook`],
    ['loopback over https', () => 'https://127.0.0.1/hook'],
    ['localhost', () => 'https://localhost/hook'],
    ['a private address', () => 'https://10.1.2.3/hook'],
    ['the metadata address', () => 'https://169.254.169.254/latest'],
  ])('refuses a webhook to %s, for an approval and for a test', async (_what, target) => {
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    const hook = target(receiver.url);
    const created = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(hook)).expect(400);
    expect(created.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'webhook.url' }] });
    const webhook = { url: hook, authentication: { type: 'None' } };
    await http().post('/v1/approvals/test-webhook').set(runtime.auth).send({ webhook }).expect(400);
    expect(receiver.received).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413 before anything else, to a caller without a token too', async () => {
    const big = JSON.stringify({ callbackId: 'x', callbackToken: 'y'.repeat(1024 * 1024), status: 'Approved' });
    const res = await fetch(`${url}/v1/AgentExecutionWebhookApproval/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
  });
});
