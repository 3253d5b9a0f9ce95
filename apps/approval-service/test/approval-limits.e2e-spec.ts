import { createServer, IncomingMessage, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { HttpPeer, eventually, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const CALLBACK = '/v1/AgentExecutionWebhookApproval/callback';
const UNKNOWN = { callbackId: '3b241101-e2bb-4255-8caf-4136c566a962', callbackToken: 'x', status: 'Approved' };

interface Answer {
  status: number;
  body: string;
}

/** A POST from a given loopback address (127.0.0.2, 127.0.0.3 … stand for different clients). */
function post(url: string, body: unknown, from: string, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A load balancer: round-robin over the upstreams, appending the caller's address to X-Forwarded-For. */
class LoadBalancer {
  private server?: Server;
  private next = 0;
  readonly served: string[] = [];

  constructor(private readonly upstreams: string[]) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.forward(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  private forward(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    const upstream = this.upstreams[this.next++ % this.upstreams.length];
    this.served.push(upstream);
    const prior = req.headers['x-forwarded-for'];
    const forwardedFor = prior ? `${prior}, ${req.socket.remoteAddress}` : String(req.socket.remoteAddress);
    const out = httpRequest(
      `${upstream}${req.url}`,
      { method: req.method, headers: { ...req.headers, 'x-forwarded-for': forwardedFor } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('Approval callback rate limit behind a load balancer', () => {
  const LIMIT = 6;
  let first: ApprovalTestApp;
  let second: ApprovalTestApp;
  let balancer: LoadBalancer;

  beforeAll(async () => {
    first = await startApprovalApp({ TRUST_PROXY: 1, CALLBACK_RATE_LIMIT_PER_MINUTE: LIMIT });
    second = await startApprovalApp(first.env, 'api');
    balancer = await new LoadBalancer([first.url, second.url]).start();
  });
  afterAll(async () => {
    await balancer.stop();
    await second.close();
    await first.close();
  });

  it('counts one client address across both processes, and not another client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++)
      statuses.push((await post(`${balancer.url}${CALLBACK}`, UNKNOWN, '127.0.0.2')).status);
    expect(new Set(balancer.served)).toEqual(new Set([first.url, second.url]));
    expect(statuses).toEqual([...Array(LIMIT).fill(404), 429]);
    expect((await post(`${balancer.url}${CALLBACK}`, UNKNOWN, '127.0.0.3')).status).toBe(404);
  });

  it('believes only the address the trusted proxy added, not one the client wrote', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      statuses.push(
        (await post(`${balancer.url}${CALLBACK}`, UNKNOWN, '127.0.0.4', { 'x-forwarded-for': `198.51.100.${i}` }))
          .status,
      );
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(404), 429]);
  });
});

describe('Approval callback rate limit without TRUST_PROXY', () => {
  it('ignores X-Forwarded-For: a client cannot pick a fresh address per call', async () => {
    // Explicit: an app started earlier in this file leaves its config in process.env.
    const sut = await startApprovalApp({ TRUST_PROXY: '', CALLBACK_RATE_LIMIT_PER_MINUTE: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await post(`${sut.url}${CALLBACK}`, UNKNOWN, '127.0.0.5', { 'x-forwarded-for': `203.0.113.${i}` })).status,
        );
      expect(statuses).toEqual([404, 404, 404, 429]);
    } finally {
      await sut.close();
    }
  });
});

describe('Approval callback rate limit: what is counted', () => {
  const ADDRESS_LIMIT = 4;
  const PER_CALLBACK_LIMIT = 3;
  let sut: ApprovalTestApp;

  beforeAll(async () => {
    sut = await startApprovalApp({
      TRUST_PROXY: '',
      CALLBACK_RATE_LIMIT_PER_MINUTE: ADDRESS_LIMIT,
      CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE: PER_CALLBACK_LIMIT,
    });
  });
  afterAll(async () => {
    await sut.close();
  });

  const unknown = () => ({ ...UNKNOWN, callbackId: randomUUID() });

  it('does not count a callbackId that is no UUID (answered 404 without a lookup): it cannot spend an address’s share', async () => {
    for (let i = 0; i < ADDRESS_LIMIT * 3; i++)
      expect((await post(`${sut.url}${CALLBACK}`, { ...UNKNOWN, callbackId: `nope-${i}` }, '127.0.0.6')).status).toBe(
        404,
      );
    expect((await post(`${sut.url}${CALLBACK}`, unknown(), '127.0.0.6')).status).toBe(404);
  });

  it('counts per callbackId and token as well as per address: one approval hammered from many addresses is held, others are not', async () => {
    const target = unknown();
    const statuses: number[] = [];
    for (let i = 0; i <= PER_CALLBACK_LIMIT; i++)
      statuses.push((await post(`${sut.url}${CALLBACK}`, target, `127.0.1.${i + 1}`)).status);
    expect(statuses).toEqual([...Array(PER_CALLBACK_LIMIT).fill(404), 429]);
    expect((await post(`${sut.url}${CALLBACK}`, unknown(), '127.0.1.1')).status).toBe(404);
  });

  it('keeps the receiver’s callback working however often its callbackId is sent with a wrong token', async () => {
    const receiver = await new HttpPeer().start();
    try {
      const runtime = await testCaller({ roles: ['agent-runtime'] });
      const created = await request(sut.app.getHttpServer())
        .post('/v1/approvals')
        .set(runtime.auth)
        .send(approvalRequest(receiver.url))
        .expect(201);
      const hook = await eventually(() =>
        receiver.received.find((r) => r.headers['webhook-id'] === created.body.approvalId),
      );
      const { callbackId, callbackToken } = JSON.parse(hook.body);
      // Wrong tokens from many addresses are held on a count of their own, not on the right token's.
      const wrong = { callbackId, callbackToken: 'not-the-token', status: 'Denied' };
      const statuses: number[] = [];
      for (let i = 0; i <= PER_CALLBACK_LIMIT; i++)
        statuses.push((await post(`${sut.url}${CALLBACK}`, wrong, `127.0.2.${i + 1}`)).status);
      expect(statuses).toEqual([...Array(PER_CALLBACK_LIMIT).fill(401), 429]);
      const right = { callbackId, callbackToken, status: 'Approved' };
      expect((await post(`${sut.url}${CALLBACK}`, right, '127.0.2.9')).status).toBe(200);
    } finally {
      await receiver.stop();
    }
  });
});

describe('Approval log and list bounds', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startApprovalApp({ CALLBACK_RATE_LIMIT_PER_MINUTE: 1200 });
    runtime = await testCaller({ roles: ['agent-runtime'] });
    receiver = await new HttpPeer((_req, res) => void res.writeHead(202).end()).start();
  });
  afterAll(async () => {
    await receiver.stop();
    await sut.close();
  });

  it('logs at most 20 rejected callbacks per approval and counts them all, leaving the state alone', async () => {
    const created = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url))
      .expect(201);
    const wrong = { callbackId: created.body.callbackId, callbackToken: 'not-the-token', status: 'Approved' };
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => http().post(CALLBACK).send(wrong)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(401));
    }
    const after = (await http().get(`/v1/approvals/${created.body.approvalId}`).set(runtime.auth).expect(200)).body;
    expect(after.log.filter((e: { type: string }) => e.type === 'CallbackRejected')).toHaveLength(20);
    expect(after.rejectedCallbacks).toBe(30);
    expect(['Pending', 'AwaitingDecision']).toContain(after.status);
    expect(after.decidedAt).toBeNull();
    const listed = (await http().get(`/v1/approvals?executionId=${after.executionId}`).set(runtime.auth).expect(200))
      .body;
    expect(listed[0]).toMatchObject({ id: after.id, rejectedCallbacks: 30, logTruncated: true });
    expect(listed[0].log).toHaveLength(20);
    expect(listed[0].log.at(-1)).toEqual(after.log.at(-1));
  });

  it('pages the list with a limit and a cursor, newest first, without gaps or repeats', async () => {
    const executionId = `exec-paged-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = { ...approvalRequest(receiver.url), executionId, stepId: `step-${i}` };
      ids.push((await http().post('/v1/approvals').set(runtime.auth).send(body).expect(201)).body.approvalId);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    const pages: number[] = [];
    do {
      const res = await http()
        .get('/v1/approvals')
        .query({ executionId, limit: 2, ...(cursor ? { cursor } : {}) })
        .set(runtime.auth)
        .expect(200);
      expect(Array.isArray(res.body)).toBe(true);
      pages.push(res.body.length);
      seen.push(...res.body.map((a: { id: string }) => a.id));
      cursor = res.headers['x-next-cursor'];
      if (cursor) expect(res.headers.link).toContain('rel="next"');
    } while (cursor);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());
  });

  it('answers 400 to a limit out of range and to a cursor it did not make', async () => {
    for (const query of [
      { limit: 0 },
      { limit: 201 },
      { limit: 'ten' },
      { cursor: 'bm90LWEtY3Vyc29y' },
      { cursor: '!!' },
    ]) {
      const res = await http().get('/v1/approvals').query(query).set(runtime.auth);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
  });

  it.each([
    '2026-13-45T25:61:61.000000Z',
    '2026-02-29T12:00:00.000000Z',
    '9999-99-99T99:99:99.999999Z',
    '0000-00-00T00:00:00.000000Z',
  ])('answers 400 VALIDATION_FAILED, not 500, to a cursor edited to a time that does not exist (%s)', async (at) => {
    const cursor = Buffer.from(`${at}|${randomUUID()}`).toString('base64url');
    const res = await http().get('/v1/approvals').query({ cursor }).set(runtime.auth);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('answers 400 VALIDATION_FAILED to an unknown query parameter, on the list and on one approval', async () => {
    const created = await http()
      .post('/v1/approvals')
      .set(runtime.auth)
      .send(approvalRequest(receiver.url))
      .expect(201);
    for (const path of ['/v1/approvals', `/v1/approvals/${created.body.approvalId}`]) {
      const res = await http().get(path).query({ bogus: '1' }).set(runtime.auth);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'bogus' })],
      });
    }
    // Who is asking is checked before what they asked.
    expect((await http().get('/v1/approvals').query({ bogus: '1' })).status).toBe(401);
  });

  it('returns at most 50 approvals when no limit is given', async () => {
    const executionId = `exec-many-${Date.now()}`;
    await Promise.all(
      Array.from({ length: 55 }, (_, i) =>
        http()
          .post('/v1/approvals')
          .set(runtime.auth)
          .send({ ...approvalRequest(receiver.url), executionId, stepId: `s-${i}` })
          .expect(201),
      ),
    );
    const res = await http().get('/v1/approvals').query({ executionId }).set(runtime.auth).expect(200);
    expect(res.body).toHaveLength(50);
    const rest = await http()
      .get('/v1/approvals')
      .query({ executionId, cursor: res.headers['x-next-cursor'] })
      .set(runtime.auth)
      .expect(200);
    expect(rest.body).toHaveLength(5);
    expect(rest.headers['x-next-cursor']).toBeUndefined();
  });
});
