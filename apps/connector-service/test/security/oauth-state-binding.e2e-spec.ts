import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../../document-system-simulator/test/support/start-simulator';
import { allStoredText, ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import {
  authorizeAtProvider,
  callback,
  providerBody,
  registerClient,
  startAuthorization,
  TEST_PUBLIC_BASE_URL,
} from '../support/oauth-flow';

const CALLBACK_PATH = '/v2/OAuth/callback';

/** The attributes of one Set-Cookie line, by lower-cased name (a flag is `true`). */
function cookieParts(line: string): { name: string; value: string; attributes: Record<string, string | true> } {
  const [pair, ...rest] = line.split(';').map((part) => part.trim());
  const at = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) attributes[part.toLowerCase()] = true;
    else attributes[part.slice(0, eq).toLowerCase()] = part.slice(eq + 1);
  }
  return { name: pair.slice(0, at), value: pair.slice(at + 1), attributes };
}

const setCookies = (res: request.Response): string[] => [res.headers['set-cookie'] ?? []].flat();

/**
 * CONTRACT.md, "Safe by default": POST /v2/OAuth/authorize sets a cookie bound to its state; the callback
 * without it (an authorization begun in another browser) stores nothing: 400 STATE_NOT_BOUND.
 */
describe('OAuth state bound to the browser that began the authorization', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let sender: TestCaller;
  let providerId: string;
  const http = () => request(sut.app.getHttpServer());
  const connectionsOf = async (caller: TestCaller) =>
    (await http().get('/v2/OAuth/connections').set(caller.auth).expect(200)).body as unknown[];

  beforeAll(async () => {
    sim = await startSimulator();
    // The simulator signs in whoever opens the link as alice: the colleague of the story.
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
    admin = await testCaller({ roles: ['admin'] });
    sender = await testCaller({ tenantId: admin.tenantId });
    const clientId = `client-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: ['secret'] });
    providerId = (
      await http()
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(providerBody(sim, { clientId, clientSecret: 'secret' }))
        .expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await sut.close();
    await sim.close();
  });

  it('sets an HttpOnly, SameSite=Lax cookie on the callback path (Secure unless ALLOW_INSECURE_URLS), stored only as a hash', async () => {
    const started = await http().post('/v2/OAuth/authorize').set(sender.auth).send({ providerId }).expect(200);
    const cookies = setCookies(started).map(cookieParts);
    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie.value.length).toBeGreaterThanOrEqual(32);
    expect(cookie.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: CALLBACK_PATH });
    expect(cookie.attributes.secure).toBeUndefined(); // the tests' ALLOW_INSECURE_URLS=true
    expect(Number(cookie.attributes['max-age'])).toBeGreaterThan(9 * 60);
    expect(Number(cookie.attributes['max-age'])).toBeLessThanOrEqual(10 * 60);
    expect(await allStoredText(sut.db)).not.toContain(cookie.value);

    const secure = await startConnectorApp({
      env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, ALLOW_INSECURE_URLS: false },
    });
    try {
      const provider = await request(secure.app.getHttpServer())
        .post('/v2/OAuth/providers')
        .set(admin.auth)
        .send(
          providerBody(sim, {
            authorizationEndpoint: 'https://idp.example.com/authorize',
            tokenEndpoint: 'https://idp.example.com/token',
          }),
        )
        .expect(201);
      const res = await request(secure.app.getHttpServer())
        .post('/v2/OAuth/authorize')
        .set(sender.auth)
        .send({ providerId: provider.body.id })
        .expect(200);
      expect(cookieParts(setCookies(res)[0]).attributes).toMatchObject({ secure: true, httponly: true });
    } finally {
      await secure.close();
    }
  });

  it('a link sent to a colleague: the callback in their browser (no cookie) stores nothing, answers 400 STATE_NOT_BOUND and uses the state up', async () => {
    const { query } = await authorizeAtProvider(sut, sender, providerId);
    const before = await tokenCalls();
    const refused = await http().get(CALLBACK_PATH).query(query).set('Accept', 'application/json').expect(400);
    expect(refused.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      code: 'STATE_NOT_BOUND',
      message: expect.stringContaining('another browser'),
    });
    expect(await tokenCalls()).toBe(before); // the colleague's code was never exchanged
    expect(await connectionsOf(sender)).toEqual([]);
    // The sender's own browser cannot finish it now either: the state was single use.
    expect((await callback(sut, query).expect(400)).body.code).toBe('OAUTH_STATE_USED');
    expect(await connectionsOf(sender)).toEqual([]);
  });

  it('shows a page saying to start again in the browser the callback came to', async () => {
    const { query } = await authorizeAtProvider(sut, sender, providerId);
    const page = await http().get(CALLBACK_PATH).query(query).set('Accept', 'text/html').expect(400);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('Connection failed');
    expect(page.text).toMatch(/started in another browser/);
    expect(page.text).toMatch(/start again/i);
    expect(page.text).toContain('STATE_NOT_BOUND');
    expect(await connectionsOf(sender)).toEqual([]);
  });

  it('refuses the cookie of another authorization, and the right one with a tampered value', async () => {
    const first = await http().post('/v2/OAuth/authorize').set(sender.auth).send({ providerId }).expect(200);
    const { query } = await authorizeAtProvider(sut, sender, providerId);
    const otherCookie = setCookies(first)[0].split(';')[0];
    const withOther = await http()
      .get(CALLBACK_PATH)
      .query(query)
      .set('Accept', 'application/json')
      .set('Cookie', otherCookie)
      .expect(400);
    expect(withOther.body.code).toBe('STATE_NOT_BOUND');

    const again = await http().post('/v2/OAuth/authorize').set(sender.auth).send({ providerId }).expect(200);
    const { name, value } = cookieParts(setCookies(again)[0]);
    const tampered = await http()
      .get(CALLBACK_PATH)
      .query({ code: 'x', state: again.body.state })
      .set('Accept', 'application/json')
      .set('Cookie', `${name}=${value.slice(0, -2)}xx`)
      .expect(400);
    expect(tampered.body.code).toBe('STATE_NOT_BOUND');
    expect(await connectionsOf(sender)).toEqual([]);
  });

  it('connects in the browser that began it, and clears the cookie there', async () => {
    const { query } = await authorizeAtProvider(sut, sender, providerId);
    const done = await callback(sut, query).expect(200);
    expect(done.body).toMatchObject({ status: 'Active', providerId });
    const cleared = setCookies(done).map(cookieParts);
    expect(cleared).toHaveLength(1);
    expect(cleared[0].attributes).toMatchObject({ path: CALLBACK_PATH });
    expect(Date.parse(String(cleared[0].attributes.expires))).toBeLessThan(Date.now());
    expect(await connectionsOf(sender)).toHaveLength(1);
  });

  async function tokenCalls(): Promise<number> {
    const calls: Record<string, number> = (await sim.admin.get('/oauth/stats')).data.tokenCalls;
    return Object.values(calls).reduce((sum, n) => sum + n, 0);
  }

  it("keeps at most a user's last 20 started authorizations: starting more drops the oldest, the newest still connects, another user's stay", async () => {
    const starter = await testCaller({ tenantId: admin.tenantId });
    const bystander = await testCaller({ tenantId: admin.tenantId });
    await startAuthorization(sut, bystander, providerId);
    const stored = async (caller: TestCaller) =>
      Number(
        (
          await sut.db.query(
            'SELECT count(*) AS n FROM connector.oauth_authorization_requests WHERE "tenantId" = $1 AND "userId" = $2',
            [caller.tenantId, caller.userId],
          )
        )[0].n,
      );
    const first = await startAuthorization(sut, starter, providerId);
    for (let i = 0; i < 40; i++) await startAuthorization(sut, starter, providerId);
    expect(await stored(starter)).toBe(20);
    expect(await stored(bystander)).toBe(1);
    // The first one is gone: its callback is told so, and stores nothing.
    expect((await callback(sut, { code: 'x', state: first.body.state }).expect(400)).body.code).toBe(
      'OAUTH_STATE_INVALID',
    );
    const { query } = await authorizeAtProvider(sut, starter, providerId);
    expect((await callback(sut, query).expect(200)).body.status).toBe('Active');
  });
});
