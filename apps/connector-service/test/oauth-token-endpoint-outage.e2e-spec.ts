import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { HttpPeer, ReceivedRequest, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import {
  authorizeAtProvider,
  callback,
  connect,
  providerBody,
  registerClient,
  TEST_PUBLIC_BASE_URL,
} from './support/oauth-flow';

interface Outage {
  grant: 'refresh_token' | 'authorization_code';
  status: number;
  error: string;
}

/**
 * A token endpoint that is briefly down and says so in OAuth's own words (a 5xx or 429 with an error
 * body, or `temporarily_unavailable` / `server_error`, as Azure AD, Keycloak and others answer during an
 * outage). That says nothing about the grant: nobody is asked to re-authenticate for it.
 */
describe('A token endpoint that is briefly down', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let tokenEndpoint: HttpPeer;
  let outage: Outage | null = null;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    // Passes calls on to the simulator, except those of the grant the outage is for.
    tokenEndpoint = await new HttpPeer(async (req, res) => {
      if (outage && new URLSearchParams(req.body).get('grant_type') === outage.grant)
        return void res
          .writeHead(outage.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: outage.error, error_description: 'try again later' }));
      const answer = await passOn(req);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    }).start();
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  });

  afterEach(() => {
    outage = null;
  });

  afterAll(async () => {
    await tokenEndpoint?.stop();
    await sut?.close();
    await sim?.close();
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

  async function userOfProvider(): Promise<{ user: TestCaller; providerId: string }> {
    const admin = await testCaller({ roles: ['admin'] });
    const user = await testCaller({ tenantId: admin.tenantId });
    const clientId = `client-${randomUUID()}`;
    const clientSecret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [clientSecret] });
    const provider = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret, tokenEndpoint: `${tokenEndpoint.url}/oauth/token` }))
      .expect(201);
    return { user, providerId: provider.body.id };
  }

  for (const { status, error } of [
    { status: 503, error: 'temporarily_unavailable' },
    { status: 500, error: 'server_error' },
    { status: 429, error: 'invalid_request' },
    { status: 400, error: 'temporarily_unavailable' },
  ])
    it(`a refresh answered HTTP ${status} {error: "${error}"} says "unavailable", and the connection stays Active and refreshes once the provider is back`, async () => {
      const { user, providerId } = await userOfProvider();
      const { id } = await connect(sut, user, providerId);
      await sut.db.query(
        `UPDATE connector.oauth_connections SET "expiresAt" = now() - interval '1 second' WHERE id = $1`,
        [id],
      );
      const tokens = sut.app.get(ConnectionTokens);

      outage = { grant: 'refresh_token', status, error };
      const during = await tokens
        .tokenSource(id)
        .current()
        .catch((failure: { code?: string; message?: string }) => failure);
      outage = null;

      expect(during).toMatchObject({ code: 'DOCUMENT_SYSTEM_UNAVAILABLE', message: expect.stringContaining(error) });
      const listed = await http().get('/v2/OAuth/connections').set(user.auth).expect(200);
      expect(listed.body).toEqual([expect.objectContaining({ id, status: 'Active' })]);
      // The same refresh token still works.
      await expect(tokens.tokenSource(id).current()).resolves.toEqual(expect.any(String));
    });

  it('a callback whose code exchange is answered HTTP 503 tells the user to try again, not that the grant was refused', async () => {
    const { user, providerId } = await userOfProvider();
    const { query } = await authorizeAtProvider(sut, user, providerId);

    outage = { grant: 'authorization_code', status: 503, error: 'temporarily_unavailable' };
    const res = await callback(sut, query);
    outage = null;

    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 502,
      body: {
        code: 'OAUTH_PROVIDER_UNAVAILABLE',
        message: expect.stringContaining('HTTP 503'),
        details: [{ resolution: expect.stringMatching(/^Try again/) }],
      },
    });
    await http().get('/v2/OAuth/connections').set(user.auth).expect(200, []);
    await expect(connect(sut, user, providerId)).resolves.toMatchObject({ status: 'Active' });
  });
});
