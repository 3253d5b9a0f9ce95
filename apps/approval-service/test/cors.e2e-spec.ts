import request from 'supertest';
import { ApprovalTestApp, startApprovalApp } from './support/approval-app';

describe('CORS for the console (CORS_ORIGINS)', () => {
  let sut: ApprovalTestApp;
  let closed: ApprovalTestApp;
  const CONSOLE = 'http://localhost:3001';

  beforeAll(async () => {
    sut = await startApprovalApp({ CORS_ORIGINS: `${CONSOLE}, https://console.example.com` });
    closed = await startApprovalApp({ CORS_ORIGINS: '' });
  });
  afterAll(async () => {
    await sut.close();
    await closed.close();
  });

  const preflight = (app: ApprovalTestApp, origin: string) =>
    request(app.app.getHttpServer())
      .options('/v1/approvals')
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization');

  it('answers the preflight of an allowed origin with that origin, the bearer header and a cache life', async () => {
    const res = await preflight(sut, CONSOLE).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(res.headers['access-control-allow-headers']).toMatch(/authorization/i);
    expect(res.headers['access-control-allow-methods']).toContain('GET');
    expect(res.headers['access-control-max-age']).toBe('600');
    const other = await preflight(sut, 'https://console.example.com').expect(204);
    expect(other.headers['access-control-allow-origin']).toBe('https://console.example.com');
  });

  it('gives a refused origin no CORS headers, so the browser blocks it', async () => {
    const res = await preflight(sut, 'https://evil.example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(sut.app.getHttpServer()).get('/v1/approvals').set('Origin', 'https://evil.example.com');
    expect(get.status).toBe(401);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds the header to real responses of an allowed origin, errors included', async () => {
    const res = await request(sut.app.getHttpServer()).get('/v1/approvals').set('Origin', CONSOLE).expect(401);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    // The approval list pages through X-Next-Cursor / Link, which a browser hides unless exposed.
    expect(res.headers['access-control-expose-headers']).toMatch(/x-next-cursor/i);
  });

  it('answers an OPTIONS request that is no full preflight with 204, not a plain-text refusal', async () => {
    await request(sut.app.getHttpServer()).options('/v1/approvals').expect(204);
    await request(sut.app.getHttpServer()).options('/v1/approvals').set('Origin', CONSOLE).expect(204);
  });

  it('sends no CORS headers at all without CORS_ORIGINS', async () => {
    const res = await preflight(closed, CONSOLE);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
