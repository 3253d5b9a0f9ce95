import axios from 'axios';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { RunningSimulator } from '@app/testing';
import { startSimulator } from './support/start-simulator';

describe('Simulated OAuth host', () => {
  let sim: RunningSimulator;
  const http = axios.create({ validateStatus: () => true, maxRedirects: 0 });
  const redirectUri = 'http://127.0.0.1:9/callback';
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const form = (data: Record<string, string>) => new URLSearchParams(data).toString();

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.post('/oauth/clients', {
      clientId: 'c1',
      clientSecrets: ['s1'],
      redirectUris: [redirectUri],
      scopes: ['openid', 'offline_access'],
      accessTokenTtlSeconds: 2,
    });
    await sim.admin.post('/oauth/clients', {
      clientId: 'basic-only',
      clientSecrets: ['s2'],
      redirectUris: [redirectUri],
      tokenEndpointAuthMethods: ['client_secret_basic'],
    });
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
  });
  afterAll(() => sim.close());

  async function code(clientId = 'c1', scope = 'openid offline_access') {
    const res = await http.get(`${sim.url}/oauth/authorize`, {
      params: {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope,
        state: 'st',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(location.searchParams.get('state')).toBe('st');
    return location.searchParams.get('code')!;
  }

  it('publishes its endpoints through OpenID discovery', async () => {
    const res = await http.get(`${sim.url}/.well-known/openid-configuration`);
    expect(res.data).toMatchObject({
      authorization_endpoint: expect.stringMatching(/\/oauth\/authorize$/),
      token_endpoint: expect.stringMatching(/\/oauth\/token$/),
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('exchanges a code with PKCE (client_secret_post) for rotating tokens and an id_token naming the user', async () => {
    const res = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: await code(),
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    expect(res.data).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 2,
    });
    expect(decodeJwt(res.data.id_token)).toMatchObject({ sub: 'alice', aud: 'c1' });
    const refreshed = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'refresh_token',
        refresh_token: res.data.refresh_token,
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    expect(refreshed.data.refresh_token).not.toBe(res.data.refresh_token);
    const reused = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'refresh_token',
        refresh_token: res.data.refresh_token,
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    expect([reused.status, reused.data.error]).toEqual([400, 'invalid_grant']);
  });

  it('checks the PKCE verifier, single use of a code and the redirect URI', async () => {
    const c = await code();
    const wrong = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: c,
        redirect_uri: redirectUri,
        code_verifier: 'x'.repeat(43),
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    expect(wrong.data).toMatchObject({ error: 'invalid_grant', error_description: 'PKCE verification failed' });
    const again = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: c,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    expect(again.data.error).toBe('invalid_grant');
    const mismatch = await http.get(`${sim.url}/oauth/authorize`, {
      params: { response_type: 'code', client_id: 'c1', redirect_uri: 'http://evil.example/cb', scope: 'openid' },
    });
    expect([mismatch.status, mismatch.data]).toEqual([400, expect.stringContaining('redirect_uri mismatch')]);
  });

  it('accepts only the configured client auth method', async () => {
    const basic = `Basic ${Buffer.from('basic-only:s2').toString('base64')}`;
    const ok = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: await code('basic-only', 'openid'),
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
      { headers: { Authorization: basic } },
    );
    expect(ok.status).toBe(200);
    const post = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: await code('basic-only', 'openid'),
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: 'basic-only',
        client_secret: 's2',
      }),
    );
    expect([post.status, post.data.error]).toEqual([401, 'invalid_client']);
  });

  it('redirects invalid_scope for scopes the client lacks, and issues no refresh token without offline_access', async () => {
    const res = await http.get(`${sim.url}/oauth/authorize`, {
      params: {
        response_type: 'code',
        client_id: 'basic-only',
        redirect_uri: redirectUri,
        scope: 'openid admin',
        state: 's',
      },
    });
    expect(new URL(res.headers.location).searchParams.get('error')).toBe('invalid_scope');
    const tokens = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: await code('c1', 'openid'),
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    expect(tokens.data.refresh_token).toBeUndefined();
  });

  it('shows a login page, and signs in with a seeded user', async () => {
    await sim.admin.put('/oauth/settings', { autoApproveUser: null });
    try {
      const params = { response_type: 'code', client_id: 'c1', redirect_uri: redirectUri, scope: 'openid', state: 'q' };
      const page = await http.get(`${sim.url}/oauth/authorize`, { params });
      expect(page.data).toContain('name="password"');
      const bad = await http.post(
        `${sim.url}/oauth/authorize`,
        form({ ...params, username: 'alice', password: 'no', decision: 'allow' }),
      );
      expect(bad.data).toContain('Wrong username or password');
      const good = await http.post(
        `${sim.url}/oauth/authorize`,
        form({ ...params, username: 'bob', password: 'bob-password', decision: 'allow' }),
      );
      expect(good.status).toBe(302);
      expect(new URL(good.headers.location).searchParams.get('code')).toEqual(expect.any(String));
    } finally {
      await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    }
  });

  it('lets access tokens expire after their lifetime', async () => {
    const res = await http.post(
      `${sim.url}/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: await code(),
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: 'c1',
        client_secret: 's1',
      }),
    );
    const session = () =>
      http.post(
        `${sim.url}/api/v1/session`,
        { username: 'alice', password: 'alice-password' },
        { headers: { Authorization: `Bearer ${res.data.access_token}` } },
      );
    expect((await session()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await session()).data).toEqual({ error: 'invalid_token' });
  });
});
