import { Client } from 'pg';
import request from 'supertest';
import {
  eventually,
  HttpPeer,
  isolatedDatabase,
  metricValue,
  ReplyDroppingProxy,
  testCaller,
  TestCaller,
} from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const PUBLIC_BASE_URL = 'https://approvals.example.com';
/** The decision statement (DecisionsRepository.decide): its move and its outbox row commit together. */
const DECISION_STATEMENT = 'INSERT INTO approval.decision_outbox ("approvalId") SELECT id::text FROM moved';
const isDecision = (chunk: Buffer) => chunk.includes(DECISION_STATEMENT);

/**
 * A decision whose statement committed on the server while its reply was lost with the connection: the
 * service runs the statement again once it reaches the database, finds the approval decided, and must
 * answer its author as a first success would, since the decision recorded is the one they sent.
 */
describe('A decision whose database reply was lost', () => {
  let sut: ApprovalTestApp;
  let proxy: ReplyDroppingProxy;
  let direct: Client;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;
  const decidedEntries = async (id: string) =>
    (await approvalOf(id)).log.filter((e: { type: string }) => ['Decided', 'Cancelled'].includes(e.type));

  beforeAll(async () => {
    const databaseUrl = await isolatedDatabase();
    const url = new URL(databaseUrl);
    proxy = await new ReplyDroppingProxy({ host: url.hostname, port: Number(url.port || 5432) }).start();
    direct = new Client({ connectionString: databaseUrl });
    await direct.connect();
    const viaProxy = new URL(databaseUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    sut = await startApprovalApp({ PUBLIC_BASE_URL, DATABASE_URL: viaProxy.toString(), METRICS_PUBLIC: true });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
    await direct?.end();
    await proxy?.stop();
  });

  async function delivered() {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201);
    const approvalId: string = res.body.approvalId;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
    await eventually(async () => (await approvalOf(approvalId)).status === 'AwaitingDecision');
    const body = JSON.parse(hook.body);
    return { approvalId, body, page: (body.decisionPageUrl as string).slice(PUBLIC_BASE_URL.length) };
  }

  const decisionsCounted = async (outcome: string) =>
    metricValue((await http().get('/metrics').expect(200)).text, 'approval_decisions_total', { outcome });

  const submit = (page: string, form: string) =>
    http().post(page).set('Content-Type', 'application/x-www-form-urlencoded').send(form);

  async function expectOneEvent(approvalId: string, expected: Record<string, unknown>) {
    expect(await sut.decision(approvalId)).toMatchObject(expected);
    await new Promise((r) => setTimeout(r, 600)); // a doubled event (a relay's) would show up now
    expect(await sut.decisionCount(approvalId)).toBe(1);
  }

  it('answers the callback 200 with the decision it sent; one Decided entry, one event', async () => {
    const a = await delivered();
    const lost = proxy.dropNext(isDecision, { reply: true });
    const res = await http()
      .post(CALLBACK)
      .send({ callbackId: a.body.callbackId, callbackToken: a.body.callbackToken, status: 'Approved', comment: 'ok' });
    await lost;
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 200,
      body: { approvalId: a.approvalId, status: 'Approved' },
    });
    expect(await decidedEntries(a.approvalId)).toHaveLength(1);
    await expectOneEvent(a.approvalId, { outcome: 'Approved', comment: 'ok' });
  });

  it('answers the decision page 200 with the page of what was recorded; one event', async () => {
    const a = await delivered();
    const lost = proxy.dropNext(isDecision, { reply: true });
    const res = await submit(a.page, 'status=Denied&comment=Too+much&decidedBy=Dana+R.');
    await lost;
    expect({ status: res.status, denied: res.text.includes('<h1>Denied</h1>') }).toEqual({ status: 200, denied: true });
    expect(await decidedEntries(a.approvalId)).toHaveLength(1);
    await expectOneEvent(a.approvalId, { outcome: 'Denied', comment: 'Too much', decidedBy: 'Dana R.' });
  });

  it('answers the cancel 200 with the cancelled approval; one event', async () => {
    const a = await delivered();
    const lost = proxy.dropNext(isDecision, { reply: true });
    const res = await http().post(`/v1/approvals/${a.approvalId}/cancel`).set(runtime.auth);
    await lost;
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200, body: { status: 'Cancelled' } });
    expect(await decidedEntries(a.approvalId)).toHaveLength(1);
    await expectOneEvent(a.approvalId, { outcome: 'Cancelled' });
  });

  it('still answers 409 when the statement was lost and someone else decided meanwhile, even the same way', async () => {
    const a = await delivered();
    const otherDecider = async () => {
      await direct.query(
        `UPDATE approval.approvals SET status = 'Approved', "decidedBy" = 'someone else', "decidedAt" = now() WHERE id = $1`,
        [a.approvalId],
      );
      await direct.query(`INSERT INTO approval.decision_outbox ("approvalId") VALUES ($1)`, [a.approvalId]);
    };
    const countedBefore = await decisionsCounted('Approved');
    const lost = proxy.dropNext(isDecision, { reply: false, meanwhile: otherDecider });
    const res = await submit(a.page, 'status=Approved&decidedBy=Dana+R.');
    await lost;
    expect({ status: res.status, approved: res.text.includes('It was approved.') }).toEqual({
      status: 409,
      approved: true,
    });
    await expectOneEvent(a.approvalId, { outcome: 'Approved', decidedBy: 'someone else' });
    // The relay published the other decider's event (its writer never did): it is counted once, there.
    expect(await decisionsCounted('Approved')).toBe(countedBefore + 1);
  });
});
