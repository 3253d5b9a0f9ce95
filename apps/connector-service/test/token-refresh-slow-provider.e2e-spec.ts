import request from 'supertest';
import { randomUUID } from 'node:crypto';
import {
  eventually,
  HttpPeer,
  OwnPostgres,
  ReceivedRequest,
  RunningSimulator,
  startOwnPostgres,
  testCaller,
  TestCaller,
} from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { connect, providerBody, registerClient, TEST_PUBLIC_BASE_URL } from './support/oauth-flow';

/** More connections refreshing at once than the service has database connections (20 per process). */
const REFRESHING = 24;

/**
 * A tenant's token endpoint that stops answering: its refreshes wait for it, and nobody else waits for them.
 * The token endpoint here passes calls on to the simulator's until it is told to hang.
 */
describe('Token refresh against a token endpoint that hangs', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let postgres: OwnPostgres;
  let tokenEndpoint: HttpPeer;
  let hanging = false;
  /** Answers the simulator gave, held back until the test lets them go. */
  let holdAnswers = false;
  const heldAnswers: Array<{ text: string; release: () => void }> = [];

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    tokenEndpoint = await new HttpPeer(async (req, res) => {
      if (req.path === '/oauth/revoke') return void res.writeHead(200).end();
      if (hanging) return; // the answer never comes; stop() drops the connection
      const answer = await passOn(req);
      const text = await answer.text();
      const release = () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      if (holdAnswers) heldAnswers.push({ text, release });
      else release();
    }).start();
    // A PostgreSQL of its own, which one test restarts.
    postgres = await startOwnPostgres();
    sut = await startConnectorApp({
      env: { DATABASE_URL: postgres.url, PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, OAUTH_HTTP_TIMEOUT_MS: 30_000 },
    });
  });

  afterAll(async () => {
    await tokenEndpoint?.stop();
    await sut?.close();
    await sim?.close();
    await postgres?.destroy();
  });

  const passOn = (req: ReceivedRequest) =>
    fetch(`${sim.url}/oauth/token`, {
      method: 'POST',
      headers: Object.fromEntries(
        ['content-type', 'authorization'].flatMap((name) =>
          req.headers[name] ? [[name, String(req.headers[name])]] : [],
        ),
      ),
      body: req.body,
    });

  /** A provider of a new tenant whose token and revocation endpoints are ours, and `count` of its users connected. */
  async function connectedUsers(count: number) {
    const admin = await testCaller({ roles: ['admin'] });
    const clientId = `client-${randomUUID()}`;
    const clientSecret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [clientSecret] });
    const provider = await request(sut.app.getHttpServer())
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(
        providerBody(sim, {
          clientId,
          clientSecret,
          tokenEndpoint: `${tokenEndpoint.url}/oauth/token`,
          revokeEndpoint: `${tokenEndpoint.url}/oauth/revoke`,
        }),
      )
      .expect(201);
    const connections: Array<{ id: string; user: TestCaller }> = [];
    for (let i = 0; i < count; i++) {
      const user = await testCaller({ tenantId: admin.tenantId });
      connections.push({ id: (await connect(sut, user, provider.body.id)).id, user });
    }
    return connections;
  }

  it('takes over the refresh of a process that died while it was under way, once its lease lapses', async () => {
    const [{ id: connectionId }] = await connectedUsers(1);
    await sut.db.query(
      `UPDATE connector.oauth_connections
       SET "expiresAt" = now() - interval '1 second', "refreshLeaseId" = $2, "refreshLeaseUntil" = now() + interval '2 seconds'
       WHERE id = $1`,
      [connectionId, randomUUID()],
    );
    const callsBefore = tokenEndpoint.received.length;

    const started = Date.now();
    const token = await sut.app.get(ConnectionTokens).tokenSource(connectionId).current();

    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(tokenEndpoint.received.length).toBe(callsBefore + 1);
    const [row] = await sut.db.query(`SELECT * FROM connector.oauth_connections WHERE id = $1`, [connectionId]);
    expect(row).toMatchObject({ status: 'Active', refreshLeaseId: null });
    expect(Date.parse(row.expiresAt)).toBeGreaterThan(Date.now());
    expect(token).toEqual(expect.any(String));
  });

  it('revokes what a refresh got when its user disconnected while it was under way', async () => {
    const [{ id: connectionId, user }] = await connectedUsers(1);
    await sut.db.query(
      `UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`,
      [connectionId],
    );
    holdAnswers = true;
    const refreshing = sut.app
      .get(ConnectionTokens)
      .tokenSource(connectionId)
      .current()
      .catch((error: Error) => error);
    await eventually(() => heldAnswers.length === 1); // the provider has rotated the refresh token

    await request(sut.app.getHttpServer()).delete(`/v2/OAuth/connections/${connectionId}`).set(user.auth).expect(204);
    holdAnswers = false;
    const [{ text, release }] = heldAnswers.splice(0);
    release();

    expect(await refreshing).toBeInstanceOf(Error);
    const rotated = JSON.parse(text).refresh_token;
    const revoked = tokenEndpoint.received
      .filter((r) => r.path === '/oauth/revoke')
      .map((r) => new URLSearchParams(r.body).get('token'));
    expect(revoked).toContain(rotated);
  });

  it('keeps the rotated refresh token through a PostgreSQL restart that comes while the provider answers', async () => {
    const [{ id: connectionId }] = await connectedUsers(1);
    const expire = () =>
      sut.db.query(`UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`, [
        connectionId,
      ]);
    await expire();
    holdAnswers = true;
    const tokens = sut.app.get(ConnectionTokens);
    const refreshing = tokens
      .tokenSource(connectionId)
      .current()
      .catch((error: Error) => error);
    await eventually(() => heldAnswers.length === 1); // the provider has rotated the refresh token

    await postgres.stop();
    holdAnswers = false;
    heldAnswers.splice(0)[0].release();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the new tokens meet the outage
    await postgres.start();

    expect(await refreshing).toEqual(expect.any(String));
    await expire();
    expect(await tokens.tokenSource(connectionId).current()).toEqual(expect.any(String)); // refreshed with the rotated token
    const [row] = await sut.db.query(`SELECT status FROM connector.oauth_connections WHERE id = $1`, [connectionId]);
    expect(row.status).toBe('Active');
  }, 60_000);

  it('holds no database connection while it waits: another tenant is answered at once', async () => {
    const connectionIds = (await connectedUsers(REFRESHING)).map((c) => c.id);
    const other = await testCaller({ roles: ['admin'] });
    hanging = true;
    await sut.db.query(
      `UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = ANY($1)`,
      [connectionIds],
    );
    const callsBefore = tokenEndpoint.received.length;

    const tokens = sut.app.get(ConnectionTokens);
    // The endpoint never answers: a refresh that ends while the calls are awaited failed on its own, and says how.
    const endedEarly: string[] = [];
    const refreshes = connectionIds.map((id) =>
      tokens
        .tokenSource(id)
        .current()
        .catch((error: Error) => {
          endedEarly.push(error.message);
          return error;
        }),
    );
    await tokenEndpoint.waitForRequests(callsBefore + REFRESHING, 20_000).catch((error: Error) => {
      throw new Error(`${error.message}; refreshes that ended meanwhile: ${JSON.stringify(endedEarly)}`);
    });

    const started = Date.now();
    await request(sut.app.getHttpServer()).get('/v1/credentials').set(other.auth).expect(200);
    expect(Date.now() - started).toBeLessThan(3_000);

    // The endpoint gives up: each refresh ends as the document system being unavailable, and the next one calls again.
    await tokenEndpoint.stop();
    const outcomes = await Promise.all(refreshes);
    expect(outcomes.every((outcome) => outcome instanceof Error)).toBe(true);
  }, 90_000);
});
