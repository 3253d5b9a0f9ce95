import request from 'supertest';
import { SharedQueue } from '@app/contracts/payloads';
import { after, HttpPeer, isolatedDatabase, testCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

/**
 * An app on a database of its own, and an approval it has sent: on the run's shared database, another test
 * file's relay would take this file's decisions out of the outbox and publish them under its own queue prefix.
 * Called in a describe block, which closes what it started.
 */
function appWithSentApproval() {
  let sut: ApprovalTestApp | undefined;
  let receiver: HttpPeer | undefined;
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });
  return async () => {
    const app = (sut = await startApprovalApp({ OUTBOX_POLL_MS: 200, DATABASE_URL: await isolatedDatabase() }));
    const peer = (receiver = await new HttpPeer().start());
    const runtime = await testCaller({ roles: ['agent-runtime'] });
    const http = () => request(app.app.getHttpServer());
    const { approvalId } = (
      await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(peer.url)).expect(201)
    ).body;
    await peer.waitForRequests(1);
    const cancel = () => http().post(`/v1/approvals/${approvalId}/cancel`).set(runtime.auth).expect(200);
    return { sut: app, approvalId: approvalId as string, cancel };
  };
}

describe('Decision events while Redis refuses to add them', () => {
  const sentApproval = appWithSentApproval();

  it('are kept in the outbox and published once Redis takes them again', async () => {
    const { sut, approvalId, cancel } = await sentApproval();
    // Every add to approval-decisions fails in Redis (its job counter is not a number).
    const redis = await sut.decisions.client;
    const counter = `${String(sut.env.QUEUE_PREFIX)}:${SharedQueue.ApprovalDecisions}:id`;
    await redis.set(counter, 'unpublishable');

    await cancel();
    await after(3000);
    expect(await sut.decisionCount(approvalId)).toBe(0);

    await redis.del(counter);
    expect(await sut.decision(approvalId, 30000)).toMatchObject({ approvalId, outcome: 'Cancelled' });
    await after(1000);
    expect(await sut.decisionCount(approvalId)).toBe(1);
  }, 60000);
});

describe('A published decision', () => {
  const sentApproval = appWithSentApproval();

  it('is marked in the outbox by its writer: once its job is gone, the relay does not publish it again', async () => {
    const { sut, approvalId, cancel } = await sentApproval();
    await cancel();
    await sut.decision(approvalId);
    // The consumer took it and Bull removed it (removeOnComplete): nothing in Redis tells it was published.
    await (await sut.decisions.getJob(approvalId))!.remove();

    await after(3000); // past the age at which a relay takes an unmarked row as a crashed writer's (2 s), polled every 200 ms
    expect(await sut.decisionCount(approvalId)).toBe(0);
    // Marked by the writer, not by a relay that took it as a leftover (which marks it 2 s or more after it was written).
    const [row] = await sut.db.query(
      `SELECT "publishedAt" < "createdAt" + interval '2 seconds' AS "byWriter" FROM approval.decision_outbox WHERE "approvalId" = $1`,
      [approvalId],
    );
    expect(row.byWriter).toBe(true);
  }, 60000);
});
