import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

describe('The console under /console (static files, configuration, development sign-in)', () => {
  let sut: ConnectorTestApp;
  let bare: ConnectorTestApp;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>Console</title><script type="module" src="/console/assets/app-1.js"></script>',
    );
    writeFileSync(join(dir, 'assets/app-1.js'), 'console.log("console");');
    sut = await startConnectorApp({
      env: { CONSOLE_DIR: dir, CONSOLE_DEV_LOGIN: true, APPROVAL_SERVICE_URL: 'http://approvals.test:3002/' },
    });
    bare = await startConnectorApp({ env: { CONSOLE_DIR: join(dir, 'missing'), CONSOLE_DEV_LOGIN: false } });
  });
  afterAll(async () => {
    await sut.close();
    await bare.close();
  });

  it('serves index.html without a token for /console, /console/ and every client route, under a strict CSP', async () => {
    for (const path of [
      '/console',
      '/console/',
      '/console/data-sources/7d1c7a52-3f7b-4c1e-9a55-0d6f1d0a4f11',
      '/console/search',
      '/console/index.html',
      '/console/data-sources/first.last',
    ]) {
      const res = await http().get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<title>Console</title>');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("connect-src 'self' http://approvals.test:3002");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['referrer-policy']).toBe('same-origin');
    }
  });

  // A browser keeps %2F in a path as it is, and Express decodes it in the segment: x%2F..%2Findex.html
  // would be sent as index.html, without the page's CSP and cached for good.
  it('404s a segment that holds a slash, a backslash or is a dot segment, so the page never comes without its CSP', async () => {
    for (const path of [
      '/console/x%2f..%2findex.html',
      '/console/assets%2F..%2Findex.html',
      '/console/assets/x%5C..%5Cindex.html',
      '/console/assets/%2e%2e/index.html',
      '/console/assets/./app-1.js',
    ]) {
      const res = await http().get(path);
      expect([path, res.status, res.headers['cache-control']]).toEqual([path, 404, undefined]);
      expect(res.text).not.toContain('<title>Console</title>');
    }
  });

  it('serves hashed assets with a long cache life, and 404s missing files and paths outside the directory', async () => {
    const asset = await http().get('/console/assets/app-1.js').expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    await http().get('/console/assets/missing-2.js').expect(404);
    const escaped = await http().get('/console/..%2f..%2fpackage.json');
    expect([403, 404]).toContain(escaped.status);
    expect(escaped.text).not.toContain('"name"');
  });

  it('tells the console where the approval-service is, whether dev sign-in is on, and the redirect URI', async () => {
    const res = await http().get('/console/config.json').expect(200);
    expect(res.body).toEqual({
      approvalServiceUrl: 'http://approvals.test:3002',
      devLogin: true,
      redirectUri: 'http://127.0.0.1:3999/v2/OAuth/callback',
    });
    expect((await request(bare.app.getHttpServer()).get('/console/config.json').expect(200)).body.devLogin).toBe(false);
  });

  it('signs development tokens only when CONSOLE_DEV_LOGIN is true, and they work on the API', async () => {
    const signed = await http()
      .post('/console/dev-token')
      .send({ tenantId: 'tenant-1', userId: 'user-1', roles: ['admin'] })
      .expect(200);
    await http().get('/v2/OAuth/providers').set('Authorization', `Bearer ${signed.body.token}`).expect(200);
    const invalid = await http()
      .post('/console/dev-token')
      .send({ tenantId: '', userId: 'u', roles: ['a b'] })
      .expect(400);
    expect(invalid.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['roles', 'tenantId']);
    const off = await request(bare.app.getHttpServer())
      .post('/console/dev-token')
      .send({ tenantId: 't', userId: 'u', roles: [] })
      .expect(404);
    expect(off.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });

  it('signs development tokens only when the Host header names this machine: a DNS-rebinding page gets none', async () => {
    const sign = (host: string) =>
      http()
        .post('/console/dev-token')
        .set('Host', host)
        .send({ tenantId: 't', userId: 'u', roles: ['admin'] });
    for (const host of ['localhost', 'localhost:3001', '127.0.0.1:3001', '127.1.2.3', '[::1]:3001', 'LOCALHOST'])
      expect([host, (await sign(host)).status]).toEqual([host, 200]);
    for (const host of [
      'attacker.example:3001',
      'attacker.example',
      'localhost.attacker.example',
      '127.0.0.1.nip.io:3001',
      '10.0.0.5:3001',
      '',
    ]) {
      const res = await sign(host);
      expect([host, res.status]).toEqual([host, 404]);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('this machine only') });
      expect(res.body.token).toBeUndefined();
    }
  });

  // Without a non-loopback IPv4 interface the remote-caller case cannot be made: Jest reports it skipped.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4');
  (external ? it : it.skip)('signs development tokens for callers on this machine only', async () => {
    const server = createServer(sut.app.getHttpAdapter().getInstance()).listen(0, '0.0.0.0');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://${external!.address}:${(server.address() as AddressInfo).port}`;
      const res = await request(url)
        .post('/console/dev-token')
        .send({ tenantId: 't', userId: 'u', roles: ['admin'] })
        .expect(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('this machine only') });
      expect(res.body.token).toBeUndefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers a clear 404 when the console is not built, and the service still works', async () => {
    const res = await request(bare.app.getHttpServer()).get('/console').expect(404);
    expect(res.text).toContain('npm run build');
    await request(bare.app.getHttpServer()).get('/health/live').expect(200);
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const doc = await http().get('/docs/openapi.json').expect(200);
    expect(Object.keys(doc.body.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});
