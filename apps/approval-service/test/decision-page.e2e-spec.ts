import request from 'supertest';
import { HttpPeer, eventually, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const PUBLIC_BASE_URL = 'https://approvals.example.com';
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
const HOSTILE = '</script><img src=x onerror=alert(1)><script>alert(2)</script>';

/** The path of a decisionPageUrl, to call on the server under test (the URL names the public address). */
const pathOf = (url: string) => {
  expect(url.startsWith(`${PUBLIC_BASE_URL}/v1/decision-pages/`)).toBe(true);
  return url.slice(PUBLIC_BASE_URL.length);
};

/** Changes one character of a token's signature, keeping it URL-safe. */
const tampered = (path: string, at: number) => {
  const i = path.length - at;
  return `${path.slice(0, i)}${path[i] === 'A' ? 'B' : 'A'}${path.slice(i + 1)}`;
};

describe('Decision page', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());
  const logLines: string[] = [];
  const approvalOf = async (id: string) => (await http().get(`/v1/approvals/${id}`).set(runtime.auth).expect(200)).body;

  beforeAll(async () => {
    // A database of its own: another test file's relay would publish this file's leftovers under its prefix.
    sut = await startApprovalApp(
      { PUBLIC_BASE_URL, DATABASE_URL: await isolatedDatabase(), LOG_LEVEL: 'info' },
      'all',
      0,
      logLines,
    );
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  async function delivered(extra: Record<string, unknown> = {}, webhook: Record<string, unknown> = {}) {
    const res = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url, webhook, extra))
      .expect(201);
    const approvalId: string = res.body.approvalId;
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
    await eventually(async () => (await approvalOf(approvalId)).status === 'AwaitingDecision');
    const body = JSON.parse(hook.body);
    return { approvalId, body, page: pathOf(body.decisionPageUrl) };
  }

  const submit = (page: string, form: string) =>
    http().post(page).set('Content-Type', 'application/x-www-form-urlencoded').send(form);

  it('is linked from the webhook and the approval, and shows the request escaped, with the page headers; showing it decides nothing', async () => {
    const a = await delivered(
      { agentName: `Agent ${HOSTILE}`, stepInput: { note: HOSTILE, amount: 1250.5 } },
      { message: `Approve? ${HOSTILE}` },
    );
    expect((await approvalOf(a.approvalId)).decisionPageUrl).toBe(a.body.decisionPageUrl);
    expect(a.body.decisionPageUrl).not.toContain(a.body.callbackToken);

    for (let i = 0; i < 2; i++) {
      const res = await http().get(a.page).expect(200);
      expect(res.headers).toMatchObject(PAGE_HEADERS);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Agent &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
      expect(res.text).toContain('Approve? &lt;/script&gt;');
      expect(res.text).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)');
      expect(res.text).toContain('1250.5');
      // No markup of the request's making, and nothing loaded from anywhere.
      expect(res.text).not.toMatch(/<script|<img|<link|<iframe|\bsrc="|\bhref="/i);
      expect(res.text).toMatch(/<form method="post">/);
      expect(res.text).toContain('name="status" value="Approved"');
      expect(res.text).toContain('name="status" value="Denied"');
      expect(res.text).toContain('name="comment"');
      expect(res.text).toContain('name="decidedBy"');
    }
    expect((await approvalOf(a.approvalId)).status).toBe('AwaitingDecision');
    expect(await sut.decisionCount(a.approvalId)).toBe(0);
  });

  it('shows the step input with its keys in the order the runtime sent them, indented by two spaces', async () => {
    const a = await delivered({ stepInput: { zeta: 1, alpha: { b: 2, a: 1 }, mid: [3, { y: null, x: '<b>' }] } });
    expect(Object.keys(a.body.stepInput)).toEqual(['zeta', 'alpha', 'mid']); // as the webhook carries it
    const res = await http().get(a.page).expect(200);
    const shown = /<pre>([\s\S]*?)<\/pre>/.exec(res.text)![1];
    expect(shown).toBe(
      [
        '{',
        '  &quot;zeta&quot;: 1,',
        '  &quot;alpha&quot;: {',
        '    &quot;b&quot;: 2,',
        '    &quot;a&quot;: 1',
        '  },',
        '  &quot;mid&quot;: [',
        '    3,',
        '    {',
        '      &quot;y&quot;: null,',
        '      &quot;x&quot;: &quot;&lt;b&gt;&quot;',
        '    }',
        '  ]',
        '}',
      ].join('\n'),
    );
  });

  it('shows at most 16,384 characters of a large step input, and says it was shortened', async () => {
    const a = await delivered({ stepInput: { lines: Array.from({ length: 3000 }, (_, i) => `line ${i}`) } });
    const res = await http().get(a.page).expect(200);
    const shown = /<pre>([\s\S]*?)<\/pre>/.exec(res.text)![1].replace(/&quot;/g, '"');
    expect(shown.length).toBe(16_384 + 2); // and "\n…" after the cut
    expect(res.text).toMatch(/Shortened: the first 16,384 of [\d,]+ characters\./);
    expect(res.text).not.toContain('line 2999');
  });

  it('approves through its form: the callback’s decision, decidedBy "decision-page" by default, one event; then 409', async () => {
    const a = await delivered();
    const res = await submit(a.page, 'status=Approved&comment=Looks+good&decidedBy=').expect(200);
    expect(res.headers).toMatchObject(PAGE_HEADERS);
    expect(res.text).toContain('<h1>Approved</h1>');
    expect(res.text).toContain('decision-page');

    const event = await sut.decision(a.approvalId);
    expect(event).toMatchObject({
      outcome: 'Approved',
      comment: 'Looks good',
      decidedBy: 'decision-page',
      output: null,
    });
    const approval = await approvalOf(a.approvalId);
    expect(approval).toMatchObject({ status: 'Approved', comment: 'Looks good', decidedBy: 'decision-page' });
    expect(approval.log.at(-1)).toMatchObject({ type: 'Decided', comment: 'Looks good', decidedBy: 'decision-page' });

    const again = await submit(a.page, 'status=Approved').expect(409);
    expect(again.headers).toMatchObject(PAGE_HEADERS);
    expect(again.text).toContain('no longer awaits a decision');
    expect(again.text).toContain('It was approved.');
    expect((await submit(a.page, 'status=Denied').expect(409)).text).toContain('It was approved.');
    expect((await http().get(a.page).expect(409)).text).toContain('It was approved.');
    const json = await http().get(a.page).set('Accept', 'application/json').expect(409);
    expect(json.body).toMatchObject({ code: 'APPROVAL_NOT_PENDING', status: 'Approved' });
    // The callback's rules hold both ways: the receiver's callback now gets 409 too.
    await http()
      .post(CALLBACK)
      .send({ callbackId: a.body.callbackId, callbackToken: a.body.callbackToken, status: 'Denied' })
      .expect(409);
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  });

  it('denies with the name the person typed; a decision by callback closes the page', async () => {
    const a = await delivered();
    expect((await submit(a.page, 'status=Denied&comment=&decidedBy=Dana+R.').expect(200)).text).toContain('Dana R.');
    expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Denied', comment: null, decidedBy: 'Dana R.' });

    const b = await delivered();
    await http()
      .post(CALLBACK)
      .send({ callbackId: b.body.callbackId, callbackToken: b.body.callbackToken, status: 'Denied' })
      .expect(200);
    expect((await http().get(b.page).expect(409)).text).toContain('It was denied.');
    expect((await submit(b.page, 'status=Approved').expect(409)).text).toContain('It was denied.');

    const c = await delivered();
    await http().post(`/v1/approvals/${c.approvalId}/cancel`).set(runtime.auth).expect(200);
    expect((await submit(c.page, 'status=Approved').expect(409)).text).toContain('It was cancelled.');
    expect(await sut.decisionCount(c.approvalId)).toBe(1);
  });

  it('records a multi-line comment the box let the person type, though the browser sends its line breaks as CR LF', async () => {
    const a = await delivered();
    expect((await http().get(a.page).expect(200)).text).toContain(
      '<textarea id="comment" name="comment" maxlength="2000"',
    );
    // 20 lines of 99 characters: 1,999 characters in the box, which its maxlength allows...
    const typed = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(99, '.')).join('\n');
    expect(typed.length).toBeLessThanOrEqual(2000);
    // ...sent with CR LF line breaks, as every browser sends a textarea (2,018 characters).
    const sent = encodeURIComponent(typed.replace(/\n/g, '\r\n'));
    expect((await submit(a.page, `status=Approved&comment=${sent}`).expect(200)).text).toContain('<h1>Approved</h1>');
    expect(await sut.decision(a.approvalId)).toMatchObject({ outcome: 'Approved', comment: typed });
  });

  it('shows no form once the decision deadline has passed, though no worker has timed it out yet', async () => {
    const a = await delivered({ decisionTimeoutSeconds: 60 });
    await http().get(a.page).expect(200);
    // The deadline passed a second ago; its job and the sweep have not come yet.
    await sut.db.query(
      `UPDATE approval.approvals SET "decisionDueAt" = clock_timestamp() - interval '1 second' WHERE id = $1`,
      [a.approvalId],
    );
    const page = await http().get(a.page).expect(409);
    expect(page.text).toContain('Its decision deadline passed.');
    expect(page.text).not.toMatch(/<form/);
    expect((await submit(a.page, 'status=Approved').expect(409)).text).toContain('Its decision deadline passed.');
    // The page decided nothing (a worker times the approval out).
    expect((await approvalOf(a.approvalId)).log.map((entry: { type: string }) => entry.type)).not.toContain('Decided');
  });

  it('keeps its token, the credential to decide, out of the request log', async () => {
    const { page, approvalId } = await delivered();
    await http().get(page).expect(200);
    await submit(page, 'status=Approved').expect(200);
    const token = page.split('/').pop()!;
    // Every page request of this file so far: only approval ids are logged.
    const paths = logLines
      .filter((line) => line.includes('/v1/decision-pages/'))
      .map((line) => JSON.parse(line).req.path as string);
    expect(paths.filter((path) => path === `/v1/decision-pages/${approvalId}.[redacted]`)).toHaveLength(2);
    for (const path of paths) expect(path).toMatch(/^\/v1\/decision-pages\/[0-9a-f-]*\.\[redacted\]$/);
    expect(logLines.filter((line) => line.includes(token.split('.').pop()!))).toEqual([]);
  });

  it('answers 404 for a tampered token or another approval’s, and its token is no callback token', async () => {
    const a = await delivered();
    const b = await delivered();
    const token = a.page.split('/').at(-1)!;
    const [approvalId, keyId, mac] = token.split('.');
    const otherId = b.approvalId;
    const forged = [
      tampered(a.page, 1),
      tampered(a.page, 10),
      `/v1/decision-pages/${otherId}.${keyId}.${mac}`,
      `/v1/decision-pages/${approvalId}.${keyId}`,
      `/v1/decision-pages/${approvalId}`,
      `/v1/decision-pages/${approvalId}.${keyId}.${mac}.x`,
      '/v1/decision-pages/not-a-token',
    ];
    for (const page of forged) {
      const shown = await http().get(page).expect(404);
      expect(shown.headers).toMatchObject(PAGE_HEADERS);
      expect(shown.text).toContain('This decision link is not valid');
      await submit(page, 'status=Approved').expect(404);
    }
    const json = await http().get(forged[0]).set('Accept', 'application/json').expect(404);
    expect(json.body).toMatchObject({ statusCode: 404, code: 'DECISION_PAGE_NOT_FOUND' });

    await http()
      .post(CALLBACK)
      .send({ callbackId: a.body.callbackId, callbackToken: token, status: 'Approved' })
      .expect(401);
    expect((await approvalOf(a.approvalId)).status).toBe('AwaitingDecision');
    expect((await approvalOf(b.approvalId)).status).toBe('AwaitingDecision');
  });

  it('refuses a form outside the callback’s rules with 400 and decides nothing', async () => {
    const a = await delivered();
    for (const form of [
      'status=approved',
      '',
      'status=Approved&extra=1',
      `status=Approved&comment=${'x'.repeat(2001)}`,
      `status=Approved&decidedBy=${'x'.repeat(201)}`,
      'status=Approved&comment=a%00b',
    ]) {
      const res = await submit(a.page, form).expect(400);
      expect(res.headers).toMatchObject(PAGE_HEADERS);
      expect(res.text).toContain('Your decision was not recorded');
    }
    expect((await approvalOf(a.approvalId)).status).toBe('AwaitingDecision');
  });

  it('lets exactly one of a page decision and a callback win', async () => {
    const a = await delivered();
    const [page, callback] = await Promise.all([
      submit(a.page, 'status=Approved'),
      http()
        .post(CALLBACK)
        .send({ callbackId: a.body.callbackId, callbackToken: a.body.callbackToken, status: 'Denied' }),
    ]);
    expect([page.status, callback.status].sort()).toEqual([200, 409]);
    const event = await sut.decision(a.approvalId);
    expect(event.outcome).toBe(page.status === 200 ? 'Approved' : 'Denied');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await sut.decisionCount(a.approvalId)).toBe(1);
  });
});

describe('Decision page turned off (DECISION_PAGE=false)', () => {
  it('leaves decisionPageUrl null in the webhook and the approval, and answers 404 to a link made while on', async () => {
    const on = await startApprovalApp({ PUBLIC_BASE_URL });
    const off = await startApprovalApp({ PUBLIC_BASE_URL, DECISION_PAGE: false });
    const receiver = await new HttpPeer().start();
    try {
      const runtime = await testCaller({ roles: ['agent-runtime'] });
      const create = async (app: ApprovalTestApp) => {
        const res = await request(app.app.getHttpServer())
          .post('/v1/approvals')
          .set(runtime.auth)
          .send(approvalRequest(receiver.url))
          .expect(201);
        const hook = await eventually(() =>
          receiver.received.find((r) => r.headers['webhook-id'] === res.body.approvalId),
        );
        return { approvalId: res.body.approvalId as string, body: JSON.parse(hook.body) };
      };
      const disabled = await create(off);
      expect(disabled.body).toHaveProperty('decisionPageUrl', null);
      const view = await request(off.app.getHttpServer())
        .get(`/v1/approvals/${disabled.approvalId}`)
        .set(runtime.auth)
        .expect(200);
      expect(view.body).toHaveProperty('decisionPageUrl', null);

      // A link the other process made (same keys, same database): valid there, 404 here.
      const linked = await create(on);
      const page = pathOf(linked.body.decisionPageUrl);
      await request(on.app.getHttpServer()).get(page).expect(200);
      const refused = await request(off.app.getHttpServer()).get(page).expect(404);
      expect(refused.headers).toMatchObject(PAGE_HEADERS);
      await request(off.app.getHttpServer())
        .post(page)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('status=Approved')
        .expect(404);
      await request(off.app.getHttpServer()).get(`/v1/decision-pages/${disabled.approvalId}.test.x`).expect(404);
    } finally {
      await receiver.stop();
      await on.close();
      await off.close();
    }
  });
});

describe('Decision page rate limit', () => {
  it('keeps the real link working however often someone who knows only the approval id tries forged links', async () => {
    const perApproval = 3;
    const sut = await startApprovalApp({
      PUBLIC_BASE_URL,
      DATABASE_URL: await isolatedDatabase(),
      CALLBACK_RATE_LIMIT_PER_MINUTE: 1200,
      CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE: perApproval,
    });
    const receiver = await new HttpPeer().start();
    try {
      const http = () => request(sut.app.getHttpServer());
      const runtime = await testCaller({ roles: ['agent-runtime'] });
      const created = await http()
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(receiver.url))
        .expect(201);
      const approvalId: string = created.body.approvalId;
      const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
      const page = pathOf(JSON.parse(hook.body).decisionPageUrl);

      // The approval id is in logs, the webhook-id header and events; the link's signature is not. A forged
      // link is held at the per-link limit on its own count.
      const forged = `/v1/decision-pages/${approvalId}.k1.not-the-mac`;
      const shown: number[] = [];
      const posted: number[] = [];
      for (let i = 0; i <= perApproval; i++) {
        shown.push((await http().get(forged)).status);
        posted.push((await http().post(forged).type('form').send('status=Denied')).status);
      }
      const heldAfterLimit = [...Array(perApproval).fill(404), 429];
      expect({ shown, posted }).toEqual({ shown: heldAfterLimit, posted: heldAfterLimit });

      await http().get(page).expect(200);
      await http().post(page).type('form').send('status=Approved&decidedBy=Dana').expect(200);
    } finally {
      await receiver.stop();
      await sut.close();
    }
  });

  it('counts the page against the callback limit per client address: 429 past it, as a page', async () => {
    const sut = await startApprovalApp({ CALLBACK_RATE_LIMIT_PER_MINUTE: 5 });
    try {
      const send = () =>
        request(sut.app.getHttpServer())
          .post('/v1/decision-pages/00000000-0000-4000-8000-000000000000.test.x')
          .set('Content-Type', 'application/x-www-form-urlencoded')
          .send('status=Approved');
      for (let i = 0; i < 5; i++) expect((await send()).status).toBe(404);
      const limited = await send();
      expect(limited.status).toBe(429);
      expect(limited.headers).toMatchObject(PAGE_HEADERS);
      expect(limited.headers['retry-after']).toEqual(expect.any(String));
      expect(limited.text).toContain('Too many requests');
    } finally {
      await sut.close();
    }
  });
});
