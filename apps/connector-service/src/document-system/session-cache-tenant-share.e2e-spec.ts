import { HttpPeer } from '@app/testing';
import { AccessTokenSource } from './document-system.adapter';
import { HttpDocumentSystemAdapter } from './http-document-system.adapter';

const tokens: AccessTokenSource = { current: async () => 'at', refreshed: async () => 'at' };

/** Session tokens the adapter below keeps (1,000 in production). */
const HELD = 20;

/**
 * CONTRACT.md, "Fair share and limits": one tenant's behaviour never degrades another's. The session cache is
 * shared by every tenant of a process; a tenant opening more logins than it holds evicts its own sessions, never
 * another tenant's: each evicted session costs a login call, which a document system may rate-limit or lock.
 */
describe('session cache shared by tenants of a connector', () => {
  let peer: HttpPeer;
  let sut: HttpDocumentSystemAdapter;

  beforeAll(async () => {
    peer = await new HttpPeer((req, res) => {
      const body =
        req.path === '/api/v1/session'
          ? { sessionToken: `st-${JSON.parse(req.body).username}`, expiresIn: 600 }
          : { items: [], nextCursor: null };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }).start();
    sut = new HttpDocumentSystemAdapter({ allowInsecure: true, allowPrivate: true }, undefined, undefined, HELD);
  });
  afterAll(async () => {
    await sut.onModuleDestroy();
    await peer.stop();
  });

  const login = (username: string) => ({ instanceUrl: peer.url, username, password: 'pw' });
  const loginsOf = (username: string) =>
    peer.received.filter((r) => r.path === '/api/v1/session' && JSON.parse(r.body).username === username).length;

  it("keeps tenant B's session while tenant A opens twice as many logins as the cache holds", async () => {
    const bSession = await sut.openSession('tenant-b', login('b'), tokens);
    for (let i = 0; i < 2 * HELD; i++) await sut.openSession('tenant-a', login(`a${i}`), tokens);

    await bSession.listChildren('f');
    await (await sut.openSession('tenant-b', login('b'), tokens)).listChildren('f');
    expect(loginsOf('b')).toBe(1);

    // A evicted its own least recently used: its latest logins (all but B's one entry) are still held.
    const latest = Array.from({ length: HELD - 1 }, (_, i) => `a${2 * HELD - 1 - i}`);
    for (const username of latest) await sut.openSession('tenant-a', login(username), tokens);
    expect(latest.map(loginsOf)).toEqual(latest.map(() => 1));
  });
});
