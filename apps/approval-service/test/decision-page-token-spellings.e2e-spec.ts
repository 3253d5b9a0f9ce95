import { request as httpRequest } from 'node:http';
import { eventually, HttpPeer, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const PUBLIC_BASE_URL = 'https://approvals.example.com';

/** A GET of `path` exactly as written: no client normalises `//`, `/./` or the percent-encoding. */
function rawGet(baseUrl: string, path: string): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject).end();
  });
}

/** Every spelling of a page address a client, a proxy or a prober may send, with the token in it. */
const SPELLINGS: Array<[string, (token: string) => string]> = [
  ['a percent-encoded hyphen', (t) => `/v1/decision%2Dpages/${t}`],
  ['a doubled slash', (t) => `/v1//decision-pages/${t}`],
  ['a dot segment', (t) => `/v1/./decision-pages/${t}`],
  ['upper case', (t) => `/V1/DECISION-PAGES/${t}`],
  ['an encoded slash', (t) => `/v1/decision-pages%2F${t}`],
  ['a percent-encoded token', (t) => `/v1/decision-pages/${t.replace(/\./g, '%2E')}`],
  ['a twice-encoded token', (t) => `/v1/decision-pages/${t.replace(/\./g, '%252E')}`],
  ['a query string', (t) => `/v1/decision-pages/${t}?x=1`],
  ['a token elsewhere', (t) => `/v1/approvals/${t}`],
];

describe('Decision page token in the request log, however the path is spelled', () => {
  let sut: ApprovalTestApp;
  let runtime: TestCaller;
  let receiver: HttpPeer;
  const logLines: string[] = [];

  beforeAll(async () => {
    sut = await startApprovalApp(
      { PUBLIC_BASE_URL, DATABASE_URL: await isolatedDatabase(), LOG_LEVEL: 'debug' },
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

  async function pageToken(): Promise<{ approvalId: string; token: string }> {
    const res = await fetch(`${sut.url}/v1/approvals`, {
      method: 'POST',
      headers: { ...runtime.auth, 'content-type': 'application/json' },
      body: JSON.stringify(approvalRequest(receiver.url)),
    });
    const { approvalId } = (await res.json()) as { approvalId: string };
    const hook = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === approvalId));
    const url: string = JSON.parse(hook.body).decisionPageUrl;
    return { approvalId, token: url.slice(`${PUBLIC_BASE_URL}/v1/decision-pages/`.length) };
  }

  it.each(SPELLINGS)('logs no part of the token past the approval id for %s', async (_spelling, spell) => {
    const { approvalId, token } = await pageToken();
    const mac = token.split('.').pop()!;
    const from = logLines.length;
    const status = await rawGet(sut.url, spell(token));
    expect(status).toBeLessThan(500);
    // The access log line of the request, written as the answer ends.
    const lines = await eventually(() => {
      const now = logLines.slice(from);
      return now.some((line) => JSON.parse(line).res?.statusCode === status) && now;
    });
    expect(lines.filter((line) => line.includes(mac))).toEqual([]);
    expect(lines.filter((line) => line.toLowerCase().includes(mac.toLowerCase()))).toEqual([]);
    expect(lines.join('\n')).toContain(approvalId);
  });

  it('serves the page under a percent-encoded hyphen and upper case, as the router reads them', async () => {
    for (const spell of [SPELLINGS[0][1], SPELLINGS[3][1]]) {
      const { token } = await pageToken();
      expect(await rawGet(sut.url, spell(token))).toBe(200);
    }
  });
});
