import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { eventually, HttpPeer, ReceivedRequest, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ProvidersService } from '../src/providers/providers.service';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import {
  authorizeAtProvider,
  callback,
  providerBody,
  registerClient,
  TEST_PUBLIC_BASE_URL,
} from './support/oauth-flow';

/**
 * An admin deletes a provider (no data source uses it: 204) while one of its users is connecting. The
 * user is told the provider is gone (404 PROVIDER_NOT_FOUND), not a 500 from a foreign-key violation.
 */
describe('A provider deleted while a user connects to it', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let tokenEndpoint: HttpPeer;
  let admin: TestCaller;
  let user: TestCaller;
  const held: Array<() => void> = [];
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    // Passes calls on to the simulator, holding each answer until the test lets it go.
    tokenEndpoint = await new HttpPeer(async (req, res) => {
      const answer = await passOn(req);
      const text = await answer.text();
      held.push(() => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text));
    }).start();
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, OAUTH_HTTP_TIMEOUT_MS: 20_000 } });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });

  afterEach(() => jest.restoreAllMocks());

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

  async function provider(): Promise<string> {
    const clientId = `client-${randomUUID()}`;
    const clientSecret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [clientSecret] });
    const res = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret, tokenEndpoint: `${tokenEndpoint.url}/oauth/token` }))
      .expect(201);
    return res.body.id;
  }

  const deleteProvider = (id: string) => http().delete(`/v2/OAuth/providers/${id}`).set(admin.auth).expect(204);

  it('the callback answers 404 PROVIDER_NOT_FOUND and stores nothing when the provider went during the code exchange', async () => {
    const providerId = await provider();
    const { query } = await authorizeAtProvider(sut, user, providerId);
    const finishing = callback(sut, query).then((res) => res);
    await eventually(() => held.length === 1); // the provider has issued the tokens; its answer waits

    await deleteProvider(providerId);
    held.splice(0)[0]();

    const res = await finishing;
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 404,
      body: { code: 'PROVIDER_NOT_FOUND', message: 'OAuth provider not found' },
    });
    await http().get('/v2/OAuth/connections').set(user.auth).expect(200, []);
  });

  it('starting an authorization answers 404 PROVIDER_NOT_FOUND when the provider goes as it starts', async () => {
    const providerId = await provider();
    const providers = sut.app.get(ProvidersService);
    const load = providers.get.bind(providers);
    jest.spyOn(providers, 'get').mockImplementationOnce(async (...args) => {
      const loaded = await load(...args);
      await deleteProvider(providerId);
      return loaded;
    });

    const res = await http().post('/v2/OAuth/authorize').set(user.auth).send({ providerId });

    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 404,
      body: { code: 'PROVIDER_NOT_FOUND' },
    });
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
