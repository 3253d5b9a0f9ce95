import http from 'node:http';
import { SignJWT } from 'jose';
import { testCaller, TestCaller, TEST_JWT_SECRET } from '@app/testing';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { dataSourceOn } from '../support/data-source-on';
import { connectorOnSimulator } from '../support/connector-on-simulator';

/** Opens a run's event stream; resolves with the status, then `ended` once the server closes it. */
function openStream(url: string, auth: Record<string, string>): Promise<{ status: number; ended: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: auth, agent: false }, (res) => {
      const ended = new Promise<number>((done) => res.on('end', () => done(Date.now())).on('error', () => done(0)));
      res.resume();
      resolve({ status: res.statusCode ?? 0, ended });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('the stream did not end')));
  });
}

/**
 * CONTRACT.md, "Safe by default": a sync-run event stream checks its caller's right at least every 60 s
 * (SYNC_RUN_STREAM_RECHECK_SECONDS, 1 s here) and ends when it is gone. The process runs no workers, so
 * the run stays Queued and its stream would otherwise stay open for 30 minutes.
 */
describe('Sync-run event streams end when their caller may no longer follow them', () => {
  const stack = connectorOnSimulator({ env: { SYNC_RUN_STREAM_RECHECK_SECONDS: 1 }, role: 'api' });
  let creator: TestCaller;
  let dataSourceId: string;
  let runId: string;
  const { http: api } = stack;
  const eventsUrl = () => `${stack.sut.url}/v1/sync-runs/${runId}/events`;

  beforeAll(async () => {
    creator = await testCaller({ roles: ['oauth-connectors:manage'] });
    dataSourceId = await dataSourceOn(
      stack.sut.app,
      stack.sim,
      stack.connections,
      creator,
      SEED_USERS.alice,
      '/Structural/Specifications',
    );
    runId = (await api().post(`/v1/data-sources/${dataSourceId}/sync`).set(creator.auth).expect(202)).body.syncRunId;
  });

  it('ends a member’s stream within the recheck interval once the member is removed', async () => {
    const member = await testCaller({ tenantId: creator.tenantId });
    await api()
      .post(`/v1/data-sources/${dataSourceId}/members`)
      .set(creator.auth)
      .send({ userId: member.userId })
      .expect(201);
    const stream = await openStream(eventsUrl(), member.auth);
    expect(stream.status).toBe(200);
    const kept = await openStream(eventsUrl(), creator.auth);

    await api().delete(`/v1/data-sources/${dataSourceId}/members/${member.userId}`).set(creator.auth).expect(204);
    const removedAt = Date.now();
    expect((await stream.ended) - removedAt).toBeLessThan(3_000);
    // The creator still may: that stream stays open.
    const stillOpen = await Promise.race([kept.ended.then(() => false), sleep(2_500).then(() => true)]);
    expect(stillOpen).toBe(true);
  });

  it('ends a stream when its token expires', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ tenant: creator.tenantId, roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(creator.userId)
      .setIssuedAt(now)
      .setExpirationTime(now + 3)
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const stream = await openStream(eventsUrl(), { Authorization: `Bearer ${token}` });
    expect(stream.status).toBe(200);
    const endedAt = await stream.ended;
    expect(endedAt).toBeGreaterThanOrEqual((now + 2) * 1000);
    expect(endedAt).toBeLessThan((now + 6) * 1000);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
