import type { ServerResponse } from 'node:http';
import { DomainException } from '@app/errors';
import { HttpPeer, ReceivedRequest } from '@app/testing';
import { DEFAULT_CALL_LIMITS } from './call-limits';
import { AccessTokenSource } from './document-system.adapter';
import { DocumentSystemException } from './document-system.exception';
import { HttpDocumentSystemAdapter } from './http-document-system.adapter';

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

/** Tokens that count how often they were refreshed. */
function tokens(initial = 'at-1'): AccessTokenSource & { refreshes: number } {
  let current = initial;
  const source = {
    refreshes: 0,
    current: async () => current,
    refreshed: async () => {
      source.refreshes++;
      current = `at-${source.refreshes + 1}`;
      return current;
    },
  };
  return source;
}

/** The peers below listen on plain-http loopback. */
const LOOPBACK_PEERS = { allowInsecure: true, allowPrivate: true };

/** The tenant the sessions below work for. */
const TENANT = 'tenant-a';

describe(HttpDocumentSystemAdapter.name, () => {
  const fast = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 1000 };
  let peer: HttpPeer;
  let sut: HttpDocumentSystemAdapter;
  let route: (req: ReceivedRequest, res: ServerResponse) => void;
  const login = () => ({ instanceUrl: peer.url, username: 'alice', password: `pw-${Math.random()}` });

  beforeEach(async () => {
    peer = await new HttpPeer((req, res) => route(req, res)).start();
    sut = new HttpDocumentSystemAdapter(LOOPBACK_PEERS, fast);
  });
  afterEach(async () => {
    await sut.onModuleDestroy();
    await peer.stop();
  });

  const session = (req: ReceivedRequest, res: ServerResponse) =>
    json(res, 200, { sessionToken: 'st-1', expiresIn: 600 });

  it('opens a session with the bearer token and sends both headers on every call', async () => {
    route = (req, res) =>
      req.path === '/api/v1/session'
        ? session(req, res)
        : json(res, 200, { items: [{ id: 'w1', name: 'MEP', rootFolderId: 'r1' }], nextCursor: null });
    const docs = await sut.openSession(TENANT, login(), tokens());
    expect(await docs.listWorkgroups()).toEqual({
      items: [{ id: 'w1', name: 'MEP', rootFolderId: 'r1' }],
      nextCursor: null,
    });
    const [open, list] = peer.received;
    expect(open.headers.authorization).toBe('Bearer at-1');
    expect(JSON.parse(open.body)).toMatchObject({ username: 'alice' });
    expect(list.headers).toMatchObject({ authorization: 'Bearer at-1', 'x-session-token': 'st-1' });
  });

  it('refuses a sessionToken no header can carry (CR LF, non-ASCII, empty) as the document system failing, and keeps none', async () => {
    for (const sessionToken of ['st\r\nX-Injected: 1', 'st-é', '']) {
      route = (req, res) =>
        req.path === '/api/v1/session'
          ? json(res, 200, { sessionToken, expiresIn: 600 })
          : json(res, 200, { items: [], nextCursor: null });
      const at = login();
      await expect(sut.openSession(TENANT, at, tokens())).rejects.toMatchObject({
        code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
        message: expect.stringContaining('sessionToken'),
      });
      // Nothing kept: the next session asks the document system again.
      const before = peer.received.length;
      await expect(sut.openSession(TENANT, at, tokens())).rejects.toMatchObject({
        code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
      });
      expect(peer.received.slice(before).some((r) => r.path === '/api/v1/session')).toBe(true);
    }
    expect(peer.received.filter((r) => r.path !== '/api/v1/session')).toEqual([]);
  });

  it('reports wrong username or password as CREDENTIALS_INVALID', async () => {
    route = (_req, res) => json(res, 401, { error: 'invalid_credentials' });
    await expect(sut.openSession(TENANT, login(), tokens())).rejects.toMatchObject({
      statusCode: 422,
      code: 'CREDENTIALS_INVALID',
      message: 'Credentials are invalid',
    });
  });

  it('reports an instance URL that is not a document system (or no host) as CREDENTIALS_INVALID', async () => {
    route = (_req, res) => res.writeHead(404).end('<html>not here</html>');
    await expect(sut.openSession(TENANT, login(), tokens())).rejects.toMatchObject({ code: 'CREDENTIALS_INVALID' });
    await expect(
      sut.openSession(TENANT, { ...login(), instanceUrl: 'http://no-such-host.invalid' }, tokens()),
    ).rejects.toMatchObject({ code: 'CREDENTIALS_INVALID' });
  });

  it('reports a host that refuses the connection as unavailable, as one that times out: not which ports are open', async () => {
    await expect(
      sut.openSession(TENANT, { ...login(), instanceUrl: 'http://127.0.0.1:1' }, tokens()),
    ).rejects.toMatchObject({
      statusCode: 502,
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
    });
  });

  it('refreshes an expired access token once and retries', async () => {
    const source = tokens();
    route = (req, res) => {
      if (req.path === '/api/v1/session') return session(req, res);
      if (req.headers.authorization === 'Bearer at-1') return json(res, 401, { error: 'invalid_token' });
      json(res, 200, { items: [], nextCursor: null });
    };
    const docs = await sut.openSession(TENANT, login(), source);
    await docs.listChildren('f1');
    expect(source.refreshes).toBe(1);
    expect(peer.received.at(-1)!.headers.authorization).toBe('Bearer at-2');
  });

  it('asks to re-authenticate when the token is refused even after a refresh', async () => {
    route = (req, res) =>
      req.path === '/api/v1/session' ? session(req, res) : json(res, 401, { error: 'invalid_token' });
    const docs = await sut.openSession(TENANT, login(), tokens());
    const error = await docs.listChildren('f1').catch((e: DomainException) => e);
    expect(error).toMatchObject({ statusCode: 409, code: 'REAUTH_REQUIRED', message: 'Re-authenticate' });
  });

  it('opens a new session once when the session expired', async () => {
    let sessions = 0;
    route = (req, res) => {
      if (req.path === '/api/v1/session') return json(res, 200, { sessionToken: `st-${++sessions}`, expiresIn: 600 });
      if (req.headers['x-session-token'] === 'st-1') return json(res, 401, { error: 'invalid_session' });
      json(res, 200, { items: [], nextCursor: null });
    };
    const docs = await sut.openSession(TENANT, login(), tokens());
    await docs.listChildren('f1');
    expect(sessions).toBe(2);
  });

  it('renews a token and a session again when they expire once more during the backoffs of one call', async () => {
    let sessions = 0;
    let calls = 0;
    const source = tokens();
    route = (req, res) => {
      if (req.path === '/api/v1/session') return json(res, 200, { sessionToken: `st-${++sessions}`, expiresIn: 600 });
      // token expired, 503, token expired again (during the backoff), session expired, 503, session expired again, then fine
      const answers: Array<[number, unknown]> = [
        [401, { error: 'invalid_token' }],
        [503, {}],
        [401, { error: 'invalid_token' }],
        [401, { error: 'invalid_session' }],
        [503, {}],
        [401, { error: 'invalid_session' }],
      ];
      const answer = answers[calls++];
      if (answer) return json(res, answer[0], answer[1]);
      json(res, 200, { items: [], nextCursor: null });
    };
    const docs = await new HttpDocumentSystemAdapter(LOOPBACK_PEERS, { ...fast, maxAttempts: 8 }).openSession(
      TENANT,
      login(),
      source,
    );
    await docs.listChildren('f1');
    expect({ refreshes: source.refreshes, sessions }).toEqual({ refreshes: 2, sessions: 3 });
  });

  it('gives up on a session that is refused the moment it is opened', async () => {
    route = (req, res) =>
      req.path === '/api/v1/session'
        ? json(res, 200, { sessionToken: `st-${Math.random()}`, expiresIn: 600 })
        : json(res, 401, { error: 'invalid_session' });
    const docs = await sut.openSession(TENANT, login(), tokens());
    await expect(docs.listChildren('f1')).rejects.toMatchObject({
      statusCode: 502,
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
    });
  });

  it('retries 429 after Retry-After and 5xx with backoff, then succeeds', async () => {
    let calls = 0;
    route = (req, res) => {
      if (req.path === '/api/v1/session') return session(req, res);
      calls++;
      if (calls === 1) return json(res, 429, { error: 'rate_limited' }, { 'retry-after': '0.2' });
      if (calls === 2) return json(res, 503, { error: 'unavailable' });
      if (calls === 3) return req.path && res.destroy();
      json(res, 200, { items: [{ kind: 'file', id: 'x', name: 'x.txt', parentId: 'f1' }], nextCursor: null });
    };
    const docs = await sut.openSession(TENANT, login(), tokens());
    const started = Date.now();
    const page = await docs.listChildren('f1');
    expect(page.items).toHaveLength(1);
    expect(calls).toBe(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('gives up after the last attempt with DOCUMENT_SYSTEM_UNAVAILABLE', async () => {
    route = (req, res) => (req.path === '/api/v1/session' ? session(req, res) : json(res, 500, {}));
    const docs = await sut.openSession(TENANT, login(), tokens());
    await expect(docs.listChildren('f1')).rejects.toMatchObject({
      statusCode: 502,
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
    });
    expect(peer.received.filter((r) => r.path.startsWith('/api/v1/folders'))).toHaveLength(4);
  });

  it('streams file content with its type and length', async () => {
    route = (req, res) => {
      if (req.path === '/api/v1/session') return session(req, res);
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '5' }).end('%PDF-');
    };
    const docs = await sut.openSession(TENANT, login(), tokens());
    const content = await docs.fileContent('file 1');
    const chunks: Buffer[] = [];
    for await (const chunk of content.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('%PDF-');
    expect(content).toMatchObject({ contentType: 'application/pdf', contentLength: 5 });
    expect(peer.received.at(-1)!.path).toBe('/api/v1/files/file%201/content');
  });

  it('says a file is gone only when the document system says it has no such file; another 404 fails the call', async () => {
    route = (req, res) => {
      if (req.path === '/api/v1/session') return session(req, res);
      if (req.path === '/api/v1/files/deleted/content') return json(res, 404, { error: 'not_found' });
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>No such page on this server</html>');
    };
    const docs = await sut.openSession(TENANT, login(), tokens());
    await expect(docs.fileContent('deleted')).rejects.toMatchObject({ statusCode: 404, code: 'FILE_NOT_FOUND' });
    await expect(docs.fileContent('elsewhere')).rejects.toMatchObject({
      statusCode: 502,
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
      message: 'The document system did not answer: HTTP 404',
    });
    // An id that no download URL can carry is no answer about the file either.
    await expect(docs.fileContent('..')).rejects.toMatchObject({
      statusCode: 502,
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
    });
  });

  describe('limits', () => {
    const limited = (limits: Partial<typeof DEFAULT_CALL_LIMITS>) =>
      new HttpDocumentSystemAdapter(LOOPBACK_PEERS, fast, { ...DEFAULT_CALL_LIMITS, ...limits });
    const drain = async (stream: NodeJS.ReadableStream) => {
      let bytes = 0;
      for await (const chunk of stream) bytes += (chunk as Buffer).length;
      return bytes;
    };

    it("keeps a tenant's calls within one share over all its logins, and another tenant's call goes at once", async () => {
      const held: ServerResponse[] = [];
      route = (req, res) => {
        if (req.path === '/api/v1/session') return session(req, res);
        if (req.path.startsWith('/api/v1/folders/slow/')) return held.push(res);
        json(res, 200, { items: [], nextCursor: null });
      };
      const sut2 = limited({ callsPerTenant: 2 });
      try {
        // Tenant A's two logins: one by another credential, one by the same user under another URL spelling.
        const a1 = await sut2.openSession('tenant-a', login(), tokens());
        const a2 = await sut2.openSession('tenant-a', { ...login(), instanceUrl: `${peer.url}/` }, tokens());
        const b = await sut2.openSession('tenant-b', login(), tokens());
        // Settled at once, so a failure below is this test's, not an unhandled rejection.
        const aCalls = [a1, a2, a1, a2, a1, a2].map((docs) =>
          docs.listChildren('slow').catch((error: unknown) => error),
        );
        await new Promise((resolve) => setTimeout(resolve, 300)); // any call past A's share would have come by now

        const started = Date.now();
        expect(await b.listChildren('fast')).toEqual({ items: [], nextCursor: null });
        expect(Date.now() - started).toBeLessThan(1000);
        expect(held.length).toBe(2); // A's calls in flight: one share between its two logins
        while (held.length < 6 || held.some((res) => !res.writableEnded)) {
          held.filter((res) => !res.writableEnded).forEach((res) => json(res, 200, { items: [], nextCursor: null }));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await Promise.all(aCalls)).toEqual(Array(6).fill({ items: [], nextCursor: null }));
      } finally {
        await sut2.onModuleDestroy();
      }
    });

    it('ends a download that falls behind the minimum rate after its grace period', async () => {
      route = (req, res) => {
        if (req.path === '/api/v1/session') return session(req, res);
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('x'), 50);
        res.on('close', () => clearInterval(timer));
      };
      const docs = await limited({ deadlineMs: 300, minBytesPerSecond: 1000 }).openSession(TENANT, login(), tokens());
      const started = Date.now();
      const content = await docs.fileContent('endless');
      await expect(drain(content.stream)).rejects.toMatchObject({
        code: 'DOCUMENT_SYSTEM_DOWNLOAD_TOO_SLOW',
        message: 'The download fell behind the minimum rate of 1000 bytes/s after its grace period',
      });
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('lets a download that keeps its rate run past the grace period', async () => {
      route = (req, res) => {
        if (req.path === '/api/v1/session') return session(req, res);
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let sent = 0;
        const timer = setInterval(() => {
          res.write(Buffer.alloc(64 * 1024));
          if (++sent === 10) res.end();
        }, 60);
        res.on('close', () => clearInterval(timer));
      };
      const docs = await limited({ deadlineMs: 200, minBytesPerSecond: 100 * 1024 }).openSession(
        TENANT,
        login(),
        tokens(),
      );
      expect(await drain((await docs.fileContent('steady')).stream)).toBe(640 * 1024);
    });

    it('ends a listing whose answer never completes at the deadline, without retrying', async () => {
      route = (req, res) => {
        if (req.path === '/api/v1/session') return session(req, res);
        res.writeHead(200, { 'content-type': 'application/json' }).write('{"items": [');
        const timer = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(timer));
      };
      // 1 s: the session's own call must pass within it on a loaded machine (at 0.3 s it once did not, under CI).
      const docs = await limited({ deadlineMs: 1000 }).openSession(TENANT, login(), tokens());
      const started = Date.now();
      await expect(docs.listChildren('f1')).rejects.toMatchObject({
        statusCode: 502,
        code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
        message: expect.stringContaining('no answer within 1 s'),
      });
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('ends a download by its listed size at the minimum rate, even one that keeps ahead of the rate by bursts', async () => {
      route = (req, res) => {
        if (req.path === '/api/v1/session') return session(req, res);
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const timer = setInterval(() => res.write(Buffer.alloc(2000)), 100); // 20,000 bytes/s, forever
        res.on('close', () => clearInterval(timer));
      };
      const docs = await limited({ deadlineMs: 300, minBytesPerSecond: 1000 }).openSession(TENANT, login(), tokens());
      const started = Date.now();
      const content = await docs.fileContent('long', 700); // 0.3 s + 700 bytes at 1,000 bytes/s = 1 s
      await expect(drain(content.stream)).rejects.toMatchObject({
        code: 'DOCUMENT_SYSTEM_DOWNLOAD_TOO_SLOW',
        message: 'The download did not end by its deadline of 1 s (700 listed bytes at 1000 bytes/s)',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('ends a download at MAX_FILE_SECONDS whatever its listed size', async () => {
      route = (req, res) => {
        if (req.path === '/api/v1/session') return session(req, res);
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const timer = setInterval(() => res.write(Buffer.alloc(2000)), 100);
        res.on('close', () => clearInterval(timer));
      };
      const docs = await limited({ deadlineMs: 300, minBytesPerSecond: 1000, maxFileSeconds: 1 }).openSession(
        TENANT,
        login(),
        tokens(),
      );
      const content = await docs.fileContent('long', 10_000_000);
      await expect(drain(content.stream)).rejects.toMatchObject({
        code: 'DOCUMENT_SYSTEM_DOWNLOAD_TOO_SLOW',
        message: 'The download did not end by its deadline of 1 s (MAX_FILE_SECONDS)',
      });
    });

    it('fails a listing page longer than LISTING_MAX_ITEMS with DOCUMENT_SYSTEM_LISTING_TOO_LONG', async () => {
      const items = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ kind: 'folder', id: `f${i}`, name: `F${i}`, parentId: 'p' }));
      let count = 4;
      route = (req, res) =>
        req.path === '/api/v1/session' ? session(req, res) : json(res, 200, { items: items(count), nextCursor: null });
      const docs = await limited({ maxListingItems: 3 }).openSession(TENANT, login(), tokens());
      await expect(docs.listChildren('f1')).rejects.toMatchObject({
        statusCode: 502,
        code: 'DOCUMENT_SYSTEM_LISTING_TOO_LONG',
        message: "The document system's listing page holds 4 items, more than LISTING_MAX_ITEMS (3)",
      });
      count = 3;
      expect((await docs.listChildren('f1')).items).toHaveLength(3);
    });

    it('keeps only the contract fields of listed items, as plain values', async () => {
      route = (req, res) =>
        req.path === '/api/v1/session'
          ? session(req, res)
          : json(res, 200, {
              items: [
                { kind: 'file', id: 'x', name: 'a.txt', parentId: 'p', size: 5, version: 2, extra: [1], sha256: {} },
              ],
              nextCursor: 'c2',
              junk: { deep: [[[]]] },
            });
      const docs = await sut.openSession(TENANT, login(), tokens());
      expect(await docs.listChildren('f1')).toEqual({
        items: [{ kind: 'file', id: 'x', name: 'a.txt', parentId: 'p', size: 5, version: '2' }],
        nextCursor: 'c2',
      });
    });

    it('fails a listing answer larger than the limit with DOCUMENT_SYSTEM_ANSWER_TOO_LARGE', async () => {
      route = (req, res) =>
        req.path === '/api/v1/session'
          ? session(req, res)
          : json(res, 200, { items: [], nextCursor: null, padding: 'x'.repeat(5000) });
      const docs = await limited({ maxAnswerBytes: 1024 }).openSession(TENANT, login(), tokens());
      await expect(docs.listChildren('f1')).rejects.toMatchObject({
        statusCode: 502,
        code: 'DOCUMENT_SYSTEM_ANSWER_TOO_LARGE',
      });
    });
  });

  it('answers REAUTH_REQUIRED, not "unavailable", when the access token cannot be refreshed', async () => {
    route = (req, res) => session(req, res);
    const refused: AccessTokenSource = {
      current: async () => {
        throw DocumentSystemException.reauthRequired();
      },
      refreshed: async () => {
        throw DocumentSystemException.reauthRequired();
      },
    };
    await expect(sut.openSession(TENANT, login(), refused)).rejects.toMatchObject({
      statusCode: 409,
      code: 'REAUTH_REQUIRED',
    });
  });

  it('takes only the origin and base path from the instance URL: its query and fragment never reach a call', async () => {
    route = (req, res) =>
      req.path.endsWith('/api/v1/session') ? session(req, res) : json(res, 200, { items: [], nextCursor: null });
    const docs = await sut.openSession(
      TENANT,
      { ...login(), instanceUrl: `${peer.url}/base/?x=/admin#frag` },
      tokens(),
    );
    await docs.listChildren('a/b', 'c 1');
    await expect(docs.listChildren('..')).rejects.toMatchObject({ code: 'FOLDER_NOT_FOUND' });
    expect(peer.received.map((r) => r.path)).toEqual([
      '/base/api/v1/session',
      '/base/api/v1/folders/a%2Fb/children?cursor=c+1',
    ]);
  });

  it('names neither socket codes nor addresses when the document system stops answering', async () => {
    route = (req, res) => (req.path === '/api/v1/session' ? session(req, res) : res.destroy());
    const docs = await sut.openSession(TENANT, login(), tokens());
    const error = await docs.listChildren('f1').catch((e: DomainException) => e);
    expect(error).toMatchObject({
      code: 'DOCUMENT_SYSTEM_UNAVAILABLE',
      message: 'The document system did not answer: the connection failed',
    });
  });

  it('reuses a live session across session objects of the same login', async () => {
    route = (req, res) =>
      req.path === '/api/v1/session' ? session(req, res) : json(res, 200, { items: [], nextCursor: null });
    const same = login();
    await sut.openSession(TENANT, same, tokens());
    await sut.openSession(TENANT, same, tokens());
    expect(peer.received.filter((r) => r.path === '/api/v1/session')).toHaveLength(1);
  });
});
