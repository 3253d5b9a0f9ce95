import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, HttpPeer } from '@app/testing';
import { AccessTokenSource } from './document-system.adapter';
import { HttpDocumentSystemAdapter } from './http-document-system.adapter';

/** An empty listing page beside 660,000 small objects (about 6 MB, 1.98 million values): costly to parse. */
const COSTLY_PAGE = Buffer.from(`{"items":[],"nextCursor":null,"junk":[${'{"a":[]},'.repeat(660_000)}{}]}`);

const tokens: AccessTokenSource = { current: async () => 'at', refreshed: async () => 'at' };

/**
 * CONTRACT.md, "Fair share and limits": one tenant's slowness never delays another's work. The parser's two
 * processes are taken in turn by tenant, so a tenant reading costly pages through eight logins has one tenant's
 * turn, as it would through one.
 */
describe('answer parser turns of tenants sharing a connector', () => {
  let peer: HttpPeer;
  let sut: HttpDocumentSystemAdapter;
  let pagesSent = 0;

  beforeAll(async () => {
    peer = await new HttpPeer((req, res) => {
      if (req.path === '/api/v1/session') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"sessionToken":"st","expiresIn":600}');
        return;
      }
      res.on('finish', () => pagesSent++);
      res.writeHead(200, { 'content-type': 'application/json' }).end(COSTLY_PAGE);
    }).start();
    sut = new HttpDocumentSystemAdapter({ allowInsecure: true, allowPrivate: true });
  });
  afterAll(async () => {
    await sut.onModuleDestroy();
    await peer.stop();
  });

  const login = (username: string) => ({ instanceUrl: peer.url, username, password: 'pw' });

  it("reads tenant B's page within a few of tenant A's when A reads 8 costly pages through 8 logins", async () => {
    const aSessions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => sut.openSession('tenant-a', login(`a${i}`), tokens)),
    );
    const bSession = await sut.openSession('tenant-b', login('b'), tokens);
    const done: string[] = [];
    const aPages = aSessions.map((session, i) => session.listChildren('f').then(() => done.push(`a${i}`)));
    // All of A's pages are in (and waiting for the parser) before B asks: each takes half a second or more to parse.
    await eventually(() => pagesSent === 8, 20_000);
    await sleep(200);
    const bPage = bSession.listChildren('f').then(() => done.push('b'));
    await Promise.all([...aPages, bPage]);

    // Two of A's were being read when B came; A's next one and B's then take turns, so four or five of A's are
    // read after B's. One lane per login put B's last, behind every login of A's.
    expect(done.indexOf('b')).toBeLessThanOrEqual(4);
  }, 120_000);
});
