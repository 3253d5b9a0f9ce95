import request from 'supertest';
import { DataSource } from 'typeorm';
import { eventually, HttpPeer, testCaller, TestCaller } from '@app/testing';
import { BatchedApprovals } from '../src/approval-store/batched-approvals';
import { ApprovalListRepository } from '../src/approvals/approval-list.repository';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/** Calls made in the same turn of the event loop share one statement: each must still get its own answer. */
describe('Approval statements shared by concurrent calls', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let repository: BatchedApprovals;
  let listing: ApprovalListRepository;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startApprovalApp();
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    receiver.handler = (_req, res) => void res.writeHead(202).end();
    repository = sut.app.get(BatchedApprovals);
    listing = sut.app.get(ApprovalListRepository);
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  async function awaitingDecision(): Promise<string> {
    const res = await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201);
    await eventually(
      async () =>
        (await http().get(`/v1/approvals/${res.body.approvalId}`).set(runtime.auth)).body.status === 'AwaitingDecision',
    );
    return res.body.approvalId;
  }

  it('lets exactly one of two conflicting decisions in one statement win, with one log entry and one outbox row', async () => {
    const id = await awaitingDecision();

    const [approved, denied] = await Promise.all([
      repository.decide(id, 'Approved', { type: 'Decided', comment: 'yes' }),
      repository.decide(id, 'Denied', { type: 'Decided', comment: 'no' }),
    ]);

    expect([approved, denied].filter(Boolean)).toHaveLength(1);
    const winner = (approved ?? denied)!;
    expect(winner.event).toMatchObject({
      approvalId: id,
      outcome: winner.status,
      comment: winner.status === 'Approved' ? 'yes' : 'no',
    });
    const db = sut.app.get(DataSource);
    const [{ decided, outbox }] = await db.query(
      `SELECT (SELECT count(*)::int FROM approval.approval_log WHERE "approvalId" = $1 AND type = 'Decided') AS decided,
              (SELECT count(*)::int FROM approval.decision_outbox WHERE "approvalId" = $1::text) AS outbox`,
      [id],
    );
    expect({ decided, outbox }).toEqual({ decided: 1, outbox: 1 });
  });

  it('records the same attempt twice in one statement once, and tells only the first caller it logged it', async () => {
    const id = await awaitingDecision();
    const result = { delivered: false, httpStatus: 503, durationMs: 5, error: 'HTTP 503' };

    const logged = await Promise.all([
      repository.recordAttempt(id, 7, result),
      repository.recordAttempt(id, 7, result),
    ]);

    expect(logged).toEqual([true, false]);
    expect((await listing.entries(id)).filter((e) => e.type === 'DeliveryAttempt' && e.attempt === 7)).toHaveLength(1);
  });

  it('answers each of several callback lookups made at once with its own approval, and null for an unknown id', async () => {
    const ids = [await awaitingDecision(), await awaitingDecision()];
    const approvals = await Promise.all(
      ids.map(async (id) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body),
    );

    const found = await Promise.all([
      ...approvals.map((a) => repository.forCallback(a.callbackId)),
      repository.forCallback('00000000-0000-4000-8000-000000000000'),
    ]);

    expect(found.map((f) => f?.id ?? null)).toEqual([...ids, null]);
  });
});
