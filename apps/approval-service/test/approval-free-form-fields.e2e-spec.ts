import request from 'supertest';
import { eventually, HttpPeer, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { FreeFormFieldsAsSent1795400017000 } from '../src/database/migrations/1795400017000-free-form-fields-as-sent';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';

/**
 * docs/security.md: free-form fields are stored and delivered exactly as sent; CONTRACT.md: a redelivery is one
 * more attempt with the same body. Each object below has its keys in an order jsonb would change.
 */
describe('Free-form fields keep the order they were sent in', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const sent = (approvalId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === approvalId);
  /** A top-level member of a JSON text, written back as text: its keys in the order the text had them. */
  const member = (text: string, key: string) => JSON.stringify(JSON.parse(text)[key]);

  const stepInput = { vendor: 'ACME Corp', amount: 1250.5, currency: 'EUR', lines: [{ sku: 'A-1', qty: 2 }] };
  const previousResults = [{ stepId: 'draft-po', output: { summary: 'ok', id: 7 } }];

  beforeAll(async () => {
    // A database of its own: the last test changes the approvals table's column types and back.
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase() });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer((_req, res) => void res.writeHead(200).end()).start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  async function requested(): Promise<string> {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, {}, { stepInput, previousResults }))
      .expect(201);
    return res.body.approvalId;
  }

  it('redelivers a queued request with the same body as its first attempt', async () => {
    const job = await sut.requests.add({
      ...approvalRequest(receiver.url, {}, { stepInput, previousResults }),
      tenantId: runtime.tenantId,
    });
    const { approvalId } = await eventually(async () => (await sut.requests.getJob(job.id!))?.returnvalue);
    await eventually(
      async () =>
        (await http().get(`/v1/approvals/${approvalId}`).set(runtime.auth)).body.status === 'AwaitingDecision',
    );
    await http().post(`/v1/approvals/${approvalId}/redeliver`).set(runtime.auth).expect(202);
    const [first, again] = await eventually(() => sent(approvalId).length >= 2 && sent(approvalId));
    expect(member(again.body, 'stepInput')).toBe(member(first.body, 'stepInput'));
    expect(member(again.body, 'previousResults')).toBe(member(first.body, 'previousResults'));
  });

  it('delivers a REST request’s stepInput and previousResults with their keys as sent', async () => {
    const approvalId = await requested();
    const [hook] = await eventually(() => sent(approvalId).length >= 1 && sent(approvalId));
    expect(member(hook.body, 'stepInput')).toBe(JSON.stringify(stepInput));
    expect(member(hook.body, 'previousResults')).toBe(JSON.stringify(previousResults));
  });

  it('keeps a decision’s output with its keys as the callback sent them, on the approval and in the event', async () => {
    const approvalId = await requested();
    const [hook] = await eventually(() => sent(approvalId).length >= 1 && sent(approvalId));
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    const output = '{"vendor":"ACME Corp","amount":1000,"id":7}';
    await http()
      .post(CALLBACK)
      .set('Content-Type', 'application/json')
      .send(`{"callbackId":"${callbackId}","callbackToken":"${callbackToken}","status":"Approved","output":${output}}`)
      .expect(200);
    const approval = await http().get(`/v1/approvals/${approvalId}`).set(runtime.auth).expect(200);
    expect(member(approval.text, 'output')).toBe(output);
    expect(JSON.stringify((await sut.decision(approvalId)).output)).toBe(output);
  });

  it('the migration to json keeps the stored values, and its rollback restores jsonb', async () => {
    const approvalId = await requested();
    const runner = sut.db.createQueryRunner();
    const stored = () =>
      runner.query(
        `SELECT "stepInput"::jsonb AS s, "previousResults"::jsonb AS p FROM approval.approvals WHERE id = $1`,
        [approvalId],
      );
    const types = async () =>
      (
        await runner.query(
          `SELECT data_type FROM information_schema.columns WHERE table_schema = 'approval' AND table_name = 'approvals'
             AND column_name IN ('stepInput', 'previousResults', 'output')`,
        )
      ).map((c: { data_type: string }) => c.data_type);
    const migration = new FreeFormFieldsAsSent1795400017000();
    await runner.startTransaction();
    try {
      const before = await stored();
      await migration.down(runner);
      expect(await types()).toEqual(['jsonb', 'jsonb', 'jsonb']);
      expect(await stored()).toEqual(before);
      await migration.up(runner);
      expect(await types()).toEqual(['json', 'json', 'json']);
      expect(await stored()).toEqual(before);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
