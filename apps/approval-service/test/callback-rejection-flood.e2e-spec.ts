import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { HttpPeer, eventually, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const FLOOD = 500;
const WAVE = 50;

/** A distinct client address per call, believed through X-Forwarded-For (TRUST_PROXY=1). */
const addressOf = (i: number) => `10.77.${i >> 8}.${i & 255}`;

describe('Wrong-token callbacks flooding one approval', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;
  /** How many times the approval's row was written since the counting trigger was installed. */
  const rowWrites = async () =>
    Number(
      (await sut.db.query('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM approval_row_writes'))[0].n,
    );

  beforeAll(async () => {
    // A database of its own: the trigger below counts every write of the approvals table.
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase(), TRUST_PROXY: 1 });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  it('writes the approval row a bounded number of times, counts and logs as before, and the real token decides at once', async () => {
    const created = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url))
      .expect(201);
    const approvalId: string = created.body.approvalId;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
    const { callbackId, callbackToken } = JSON.parse(hook.body);
    await eventually(async () => (await approvalOf(approvalId)).status === 'AwaitingDecision');
    await sut.db.query(`CREATE SEQUENCE approval_row_writes;
      CREATE FUNCTION count_approval_row_write() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM nextval('approval_row_writes'); RETURN NEW; END $$;
      CREATE TRIGGER approval_row_writes AFTER UPDATE ON approval.approvals
        FOR EACH ROW EXECUTE FUNCTION count_approval_row_write()`);

    const wrong = (i: number) =>
      http()
        .post(CALLBACK)
        .set('X-Forwarded-For', addressOf(i))
        .send({ callbackId, callbackToken: randomBytes(32).toString('base64url'), status: 'Approved' });
    const started = Date.now();
    let decision: Promise<{ status: number; ms: number; at: number }> | undefined;
    for (let sent = 0; sent < FLOOD; sent += WAVE) {
      const wave = Array.from({ length: WAVE }, (_, i) => wrong(sent + i));
      if (sent === FLOOD / 2) {
        // The real receiver calls back in the middle of the flood, from an address of its own.
        const at = Date.now();
        decision = Promise.resolve(
          http()
            .post(CALLBACK)
            .set('X-Forwarded-For', '192.0.2.10')
            .send({ callbackId, callbackToken, status: 'Approved' }),
        ).then((res) => ({ status: res.status, ms: Date.now() - at, at: Date.now() }));
      }
      expect((await Promise.all(wave)).map((r) => r.status)).toEqual(Array(WAVE).fill(401));
    }
    const floodMs = Date.now() - started;
    const decided = await decision!;
    const writes = await rowWrites();
    console.log(
      `flood of ${FLOOD} in ${floodMs} ms: ${writes} row writes; the real callback answered in ${decided.ms} ms`,
    );

    expect(decided.status).toBe(200);
    // At once: long before the half of the flood sent after it had its answers.
    expect(decided.at).toBeLessThan(started + floodMs);
    expect(decided.ms).toBeLessThan(2_000);
    const after = await approvalOf(approvalId);
    expect(after).toMatchObject({ status: 'Approved', rejectedCallbacks: FLOOD });
    expect(after.log.filter((e: { type: string }) => e.type === 'CallbackRejected')).toHaveLength(20);
    // The decision, plus at most one rejection write per second of flood (and the first at once).
    expect(writes).toBeLessThanOrEqual(1 + Math.ceil(floodMs / 1000) + 1);
  });
});
