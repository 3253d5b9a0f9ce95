import { randomUUID } from 'node:crypto';
import {
  HOSTILE_AUTHORIZATIONS,
  HOSTILE_BODIES,
  HOSTILE_ID_SEGMENTS,
  HOSTILE_URLS,
  HOSTILE_VALUES,
  RawAnswer,
  refusalProblem,
  sendRaw,
  testCaller,
  TestCaller,
  withRawValue,
} from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { BODY_ROUTES, ID_ROUTES, JSON_TYPE, Owned, PLACEHOLDER, QUERIES } from './support/hostile-routes';
import { providerBody } from './support/oauth-flow';
import { syncToSearchable } from './support/sync-helpers';

/**
 * A malicious member of a tenant (an admin of it, so every route reaches its validation) sends what no client
 * should: each answer is a 4xx with the contract's error body, never a 500 or a hang, and nothing it owns moves.
 */
describe('Hostile input on every connector route', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let owned: Owned;
  let before: unknown;
  const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
    sendRaw(stack.sut.url, { method, path, headers: { ...admin.auth, ...headers }, body });
  const json = async (path: string) => JSON.parse((await send('GET', path)).text) as unknown;

  /** What the caller sees of everything it owns: a refused request must leave it as it was. */
  const everything = async () => ({
    providers: await json('/v2/OAuth/providers'),
    credentials: await json('/v1/credentials'),
    dataSources: await json(`/v1/projects/${owned.projectId}/data-sources`),
    members: await json(`/v1/data-sources/${owned.dataSourceId}/members`),
    runs: await json(`/v1/data-sources/${owned.dataSourceId}/sync-runs`),
    document: await json(`/v1/documents/${owned.documentId}`),
  });

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    const post = async (path: string, body: unknown) =>
      JSON.parse((await send('POST', path, JSON_TYPE, JSON.stringify(body))).text);
    const projectId = randomUUID();
    const providerId = (await post('/v2/OAuth/providers', providerBody(stack.sim))).id;
    const credentialId = (
      await post('/v1/credentials', {
        name: 'Sim',
        type: 'DocumentSystem',
        instanceUrl: stack.sim.url,
        ...SEED_USERS.alice,
        scope: 'Tenant',
      })
    ).id;
    const connectionId = stack.connections.connect(admin);
    const dataSourceId = (
      await post(`/v1/projects/${projectId}/data-sources`, { name: 'Docs', credentialId, connectionId })
    ).id;
    const folder = await stack.sim.folderId('/Structural/Specifications');
    await stack
      .http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(admin.auth)
      .send({ include: [folder], exclude: [] })
      .expect(200);
    const run = await syncToSearchable(stack.sut.app, admin, dataSourceId);
    const tree = (
      await stack
        .http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: folder })
        .set(admin.auth)
        .expect(200)
    ).body;
    owned = {
      projectId,
      providerId,
      credentialId,
      dataSourceId,
      syncRunId: run.id,
      documentId: tree.files[0].documentId,
      connectionId,
    };
    before = await everything();
  });

  const expectRefused = (answer: RawAnswer, allowed?: number[]) => expect(refusalProblem(answer, allowed)).toBeNull();

  describe('an id in the path that is no id', () => {
    const cases = ID_ROUTES.flatMap(([method, path]) =>
      HOSTILE_ID_SEGMENTS.map(
        ([what, segment]) => [`${method} ${path(PLACEHOLDER, '{id}')} with ${what}`, method, path, segment] as const,
      ),
    );
    it.each(cases)('%s', async (_name, method, path, segment) => {
      const withBody = method !== 'GET' && method !== 'DELETE';
      const answer = await send(method, path(owned, segment), withBody ? JSON_TYPE : {}, withBody ? '{}' : undefined);
      expectRefused(answer, [400, 404]);
    });

    it.each(HOSTILE_ID_SEGMENTS)('DELETE a member named by %s', async (_what, segment) => {
      expectRefused(await send('DELETE', `/v1/data-sources/${owned.dataSourceId}/members/${segment}`), [204, 400, 404]);
    });
  });

  describe('query strings no page handed out', () => {
    const cases = QUERIES.flatMap(([what, path, queries]) =>
      queries.map((query) => [`${what}: ?${query.slice(0, 60)}`, path, query] as const),
    );
    it.each(cases)('%s', async (_name, path, query) => {
      const answer = await send('GET', `${path(owned)}?${query}`);
      // Taken as a search text, a prefix or a folder the document system does not have: no harm.
      expectRefused(answer, [200, 400, 404]);
    });

    it.each([
      ['a repeated state', 'state=a&state=b&code=c'],
      ['a repeated error', 'state=a&error=access_denied&error=invalid_scope'],
      ['a NUL in the state', 'state=%00&code=c'],
      ['a broken percent-encoding', 'state=%E0%A4%A&code=%'],
      ['an 8,000-character state', `state=${'s'.repeat(8_000)}&code=c`],
      ['bracketed names', 'state[a]=1&code[]=2'],
    ])('the OAuth callback with %s', async (_what, query) => {
      expectRefused(await send('GET', `/v2/OAuth/callback?${query}`, { accept: 'application/json' }), [400]);
    });
  });

  describe('bodies of odd shapes and values', () => {
    const shapes = BODY_ROUTES.flatMap(([method, path]) =>
      HOSTILE_BODIES.map(
        ([what, headers, body]) => [`${method} ${path(PLACEHOLDER)}: ${what}`, method, path, headers, body] as const,
      ),
    );
    it.each(shapes)('%s', async (_name, method, path, headers, body) => {
      expectRefused(await send(method, path(owned), headers, body), [400, 413, 415]);
    });

    const values = BODY_ROUTES.flatMap(([method, path, body, fields]) =>
      fields.flatMap((field) =>
        HOSTILE_VALUES.map(
          ([what, raw]) =>
            [`${method} ${path(PLACEHOLDER)}: ${field} = ${what}`, method, path, body, field, raw] as const,
        ),
      ),
    );
    it.each(values)('%s', async (_name, method, path, body, field, raw) => {
      const text = withRawValue(body(owned, stack.sim), field, raw);
      expectRefused(await send(method, path(owned), JSON_TYPE, text), [400]);
    });
  });

  describe('Authorization headers that carry no valid token', () => {
    it.each(HOSTILE_AUTHORIZATIONS)('answers %s with 401', async (_what, authorization) => {
      const answer = await sendRaw(stack.sut.url, {
        method: 'GET',
        path: '/v1/credentials',
        headers: { authorization },
      });
      expectRefused(answer, [401]);
    });
  });

  describe('request headers of odd values', () => {
    it.each([
      ['text', 'If-None-Match: *', { 'if-none-match': '*' }],
      ['text', 'a malformed If-None-Match', { 'if-none-match': 'W/"a, "b' }],
      ['text', 'an If-None-Match of 6,000 characters', { 'if-none-match': `"${'e'.repeat(6_000)}"` }],
      ['text', 'an If-Modified-Since that is no date', { 'if-modified-since': 'yesterday' }],
      ['content', 'a Range past the end', { range: 'bytes=999999999999999999-' }],
      ['content', 'a malformed Range', { range: 'bytes=abc' }],
      ['text', 'an Accept of no media type', { accept: '*/*;q=abc, ;;,' }],
    ])('GET a document’s %s with %s', async (what, _name, headers) => {
      const answer = await send('GET', `/v1/documents/${owned.documentId}/${what}`, headers);
      expectRefused(answer, [200, 304, 406, 416]);
    });

    it('answers the OAuth callback with an Accept of no media type, not 500', async () => {
      const answer = await send('GET', '/v2/OAuth/callback?state=a&code=b', { accept: '*/*;q=abc, ;;,' });
      expect(answer.status).toBe(400);
    });
  });

  // Saved or refused, never a 500; calling them is the outbound policy's (security/outbound-url-policy).
  describe('instance URLs of odd spellings (in a tenant of their own)', () => {
    it.each(HOSTILE_URLS)('%s', async (instanceUrl) => {
      const other = await testCaller({ roles: ['admin'] });
      const login = { name: 'Odd', type: 'DocumentSystem', instanceUrl, ...SEED_USERS.alice, scope: 'Tenant' };
      const headers = { ...other.auth, ...JSON_TYPE };
      const body = JSON.stringify(login);
      expectRefused(
        await sendRaw(stack.sut.url, { method: 'POST', path: '/v1/credentials', headers, body }),
        [201, 400],
      );
    });
  });

  it('leaves everything the caller owns as it was', async () => {
    expect(await everything()).toEqual(before);
  });
});
