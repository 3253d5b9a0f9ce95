import {
  eventually,
  HOSTILE_AUTHORIZATIONS,
  HOSTILE_BODIES,
  HOSTILE_ID_SEGMENTS,
  HOSTILE_URLS,
  HOSTILE_VALUES,
  HttpPeer,
  RawAnswer,
  refusalProblem,
  sendRaw,
  testCaller,
  TestCaller,
  withRawValue,
} from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

/** An approval awaiting its decision, with what its webhook carried. */
interface Awaiting {
  approvalId: string;
  callbackId: string;
  callbackToken: string;
  /** The path of its decision page. */
  page: string;
}

const REQUEST_FIELDS = [
  'executionId',
  'stepId',
  'agentName',
  'decisionTimeoutSeconds',
  'webhook',
  'webhook.url',
  'webhook.authentication',
  'webhook.authentication.type',
  'webhook.timeoutSeconds',
  'webhook.maxRetryAttempts',
  'webhook.message',
  'webhook.remindAfterSeconds',
];
/** Fields whose value is any JSON: only what no JSON value may hold is refused there. */
const FREE_FORM_FIELDS = ['stepInput', 'stepInput.amount', 'previousResults', 'previousResults.0.output'];
const CALLBACK_FIELDS = ['callbackId', 'callbackToken', 'status', 'comment', 'decidedBy', 'output', 'output.a'];
/** -0 is 0, which these fields take. */
const ZERO_FITS = ['webhook.maxRetryAttempts -0'];
/** Values a free-form field must refuse: the rest are data. */
const NEVER_DATA = [
  'a string with U+0000',
  'a lone high surrogate',
  'a lone low surrogate',
  '1e309 (Infinity once parsed)',
];

/**
 * A malicious caller (the agent runtime's role, or anyone holding a callback or a decision page) sends what no
 * client should: each answer is a 4xx with the contract's error body, never a 500 or a hang, and the approval
 * it aims at stays undecided.
 */
describe('Hostile input on every approval route', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  let awaiting: Awaiting;
  let before: unknown;
  // Decision pages answer errors as pages unless JSON is asked for; every other route answers JSON anyway.
  const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
    sendRaw(sut.url, { method, path, headers: { ...runtime.auth, accept: 'application/json', ...headers }, body });
  const approval = async () => JSON.parse((await send('GET', `/v1/approvals/${awaiting.approvalId}`)).text);
  const expectRefused = (answer: RawAnswer, allowed?: number[]) => expect(refusalProblem(answer, allowed)).toBeNull();
  const request = (webhook: Record<string, unknown> = {}) =>
    approvalRequest(receiver.url, { remindAfterSeconds: 3600, ...webhook }, { decisionTimeoutSeconds: 86_400 });
  const callback = (extra: Record<string, unknown> = {}) => ({
    callbackId: awaiting.callbackId,
    callbackToken: awaiting.callbackToken,
    status: 'Approved',
    comment: 'ok',
    decidedBy: 'someone',
    output: { a: 1 },
    ...extra,
  });

  beforeAll(async () => {
    sut = await startApprovalApp({ CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE: 100_000 });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
    const created = await send('POST', '/v1/approvals', JSON_TYPE, JSON.stringify(request()));
    const { approvalId } = JSON.parse(created.text) as { approvalId: string };
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
    const body = JSON.parse(hook.body) as { callbackId: string; callbackToken: string; decisionPageUrl: string };
    awaiting = { approvalId, ...body, page: new URL(body.decisionPageUrl).pathname };
    await eventually(async () => (await approval()).status === 'AwaitingDecision');
    before = await approval();
  });
  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  describe('an id or token in the path that is none', () => {
    const routes: Array<[string, (segment: string) => string]> = [
      ['GET', (s) => `/v1/approvals/${s}`],
      ['POST', (s) => `/v1/approvals/${s}/redeliver`],
      ['POST', (s) => `/v1/approvals/${s}/cancel`],
      ['GET', (s) => `/v1/decision-pages/${s}`],
      ['POST', (s) => `/v1/decision-pages/${s}`],
    ];
    const segments: Array<[string, string]> = [
      ...HOSTILE_ID_SEGMENTS,
      ['a 3,000-character segment', 'a'.repeat(3_000)],
      ['three dots', '...'],
    ];
    const cases = routes.flatMap(([method, path]) =>
      segments.map(([what, segment]) => [`${method} ${path('{id}')} with ${what}`, method, path, segment] as const),
    );
    it.each(cases)('%s', async (_name, method, path, segment) => {
      const body = method === 'POST' ? 'status=Approved' : undefined;
      expectRefused(await send(method, path(segment), method === 'POST' ? FORM_TYPE : {}, body), [400, 404]);
    });

    it.each([
      ['a NUL after it', (page: string) => `${page}%00`],
      ['a broken percent-encoding after it', (page: string) => `${page}%E0%A4%A`],
      ['its dots percent-encoded twice', (page: string) => page.replace(/\./g, '%252E')],
    ])("a decision page's token with %s", async (_what, spelling) => {
      expectRefused(await send('GET', spelling(awaiting.page)), [400, 404]);
      expectRefused(await send('POST', spelling(awaiting.page), FORM_TYPE, 'status=Approved'), [400, 404]);
    });
  });

  describe('query strings of the approval list that no page handed out', () => {
    const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
    it.each([
      'executionId=%00',
      'executionId=a&executionId=b',
      'status=Pending&status=Denied',
      'status=%00',
      'limit=1&limit=2',
      'limit=-0',
      'limit=9007199254740993',
      'cursor=%%%',
      'cursor=a&cursor=b',
      `cursor=${cursorOf('0000-01-01T00:00:00.000000Z|00000000-0000-0000-0000-000000000000')}`,
      `cursor=${cursorOf('2026-02-30T00:00:00.000000Z|00000000-0000-0000-0000-000000000000')}`,
      `cursor=${cursorOf('2026-01-01T00:00:00.000000Z|x|y')}`,
      `cursor=${cursorOf('\u0000|\ud800')}`,
    ])('?%s', async (query) => {
      expectRefused(await send('GET', `/v1/approvals?${query}`), [400]);
    });

    it("takes a cursor of another tenant's list as a place in the caller's own list only", async () => {
      const other = await testCaller({ roles: ['agent-runtime'] });
      const theirs = { ...other.auth, ...JSON_TYPE };
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const created = await sendRaw(sut.url, {
          method: 'POST',
          path: '/v1/approvals',
          headers: theirs,
          body: JSON.stringify(request()),
        });
        ids.push((JSON.parse(created.text) as { approvalId: string }).approvalId);
      }
      const page = await sendRaw(sut.url, { method: 'GET', path: '/v1/approvals?limit=1', headers: other.auth });
      const cursor = String(page.headers['x-next-cursor']);
      const mine = await send('GET', `/v1/approvals?cursor=${cursor}`);
      expect(mine.status).toBe(200);
      const listed = (JSON.parse(mine.text) as Array<{ id: string }>).map((a) => a.id);
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.filter((id) => ids.includes(id))).toEqual([]);
    });
  });

  describe('bodies of odd shapes and values', () => {
    const routes: Array<[string, string, () => string]> = [
      ['POST', '/v1/approvals', () => '/v1/approvals'],
      ['POST', '/v1/approvals/test-webhook', () => '/v1/approvals/test-webhook'],
      ['POST', CALLBACK, () => CALLBACK],
      ['POST', '/v1/decision-pages/{token}', () => awaiting.page],
    ];
    const shapes = routes.flatMap(([method, label, path]) =>
      HOSTILE_BODIES.map(
        ([what, headers, body]) => [`${method} ${label}: ${what}`, method, path, headers, body] as const,
      ),
    );
    it.each(shapes)('%s', async (_name, method, path, headers, body) => {
      expectRefused(await send(method, path(), headers, body), [400, 413, 415]);
    });

    const requestCases = [...REQUEST_FIELDS, ...FREE_FORM_FIELDS].flatMap((field) =>
      HOSTILE_VALUES.filter(([what]) =>
        FREE_FORM_FIELDS.includes(field) ? NEVER_DATA.includes(what) : !ZERO_FITS.includes(`${field} ${what}`),
      ).map(([what, raw]) => [`${field} = ${what}`, field, raw] as const),
    );
    it.each(requestCases)('POST /v1/approvals and test-webhook: %s', async (_name, field, raw) => {
      const body = request();
      expectRefused(await send('POST', '/v1/approvals', JSON_TYPE, withRawValue(body, field, raw)), [400]);
      if (field.startsWith('webhook.')) {
        const text = withRawValue({ webhook: body.webhook }, field, raw);
        expectRefused(await send('POST', '/v1/approvals/test-webhook', JSON_TYPE, text), [400]);
      }
    });

    const callbackCases = CALLBACK_FIELDS.flatMap((field) =>
      HOSTILE_VALUES.filter(([what]) => (field.startsWith('output') ? NEVER_DATA.includes(what) : true)).map(
        ([what, raw]) => [`${field} = ${what}`, field, raw] as const,
      ),
    );
    it.each(callbackCases)('the callback: %s', async (_name, field, raw) => {
      expectRefused(await send('POST', CALLBACK, JSON_TYPE, withRawValue(callback(), field, raw)), [400, 401, 404]);
    });

    it.each([
      ['a callbackId that is no UUID', { callbackId: 'x' }],
      ['a callbackId of 100 characters', { callbackId: 'c'.repeat(100) }],
      ['a callbackId in capitals with a NUL', { callbackId: 'A\u0000' }],
      ['a status in small letters', { status: 'approved' }],
      ['a comment of 2,001 characters', { comment: 'c'.repeat(2_001) }],
      ['an output of 70,000 characters', { output: { text: 'o'.repeat(70_000) } }],
    ])('the callback with %s', async (_what, extra) => {
      expectRefused(await send('POST', CALLBACK, JSON_TYPE, JSON.stringify(callback(extra))), [400, 401, 404]);
    });

    it.each([
      'status=Approved&status=Denied',
      'status=approved',
      'status=Approved&comment=%00',
      'status=Approved&decidedBy=%00',
      `status=Approved&comment=${'c'.repeat(2_001)}`,
      `status=Approved&decidedBy=${'d'.repeat(201)}`,
      'status=Approved&comment[a]=1',
      'status=Approved&__proto__=x',
      'status=Approved&bogus=1',
    ])('the decision page form %s', async (form) => {
      expectRefused(await send('POST', awaiting.page, { ...FORM_TYPE, accept: 'application/json' }, form), [400]);
    });
  });

  describe('webhook URLs of odd spellings', () => {
    it.each(HOSTILE_URLS)('%s', async (url) => {
      const body = request({ url });
      const created = await send('POST', '/v1/approvals', JSON_TYPE, JSON.stringify(body));
      expectRefused(created, [201, 400]);
      const tested = await send(
        'POST',
        '/v1/approvals/test-webhook',
        JSON_TYPE,
        JSON.stringify({ webhook: body.webhook }),
      );
      expectRefused(tested, [200, 400]);
    });
  });

  describe('Authorization headers that carry no valid token', () => {
    it.each(HOSTILE_AUTHORIZATIONS)('answers %s with 401', async (_what, authorization) => {
      const answer = await sendRaw(sut.url, { method: 'GET', path: '/v1/approvals', headers: { authorization } });
      expectRefused(answer, [401]);
    });
  });

  it('leaves the approval undecided, its log and its event as they were', async () => {
    expect(await approval()).toEqual(before);
    expect(await sut.decisionCount(awaiting.approvalId)).toBe(0);
  });
});
