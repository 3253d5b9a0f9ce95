import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { BaseEnv } from '@app/config';
import { HttpPeer } from '@app/testing';
import { KEY_SET_LIMITS } from './remote-key-set';
import { TokenVerifier } from './token-verifier';

describe('TokenVerifier with AUTH_JWKS_URL', () => {
  let token: string;
  let keySet: string;
  const peers: HttpPeer[] = [];
  const verifiers: TokenVerifier[] = [];

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    keySet = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    token = await new SignJWT({ tenant: 'tenant-1', roles: ['admin'] })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('user-1')
      .setExpirationTime('5m')
      .sign(privateKey);
  });

  afterEach(async () => {
    verifiers.splice(0).forEach((v) => v.onModuleDestroy());
    await Promise.all(peers.splice(0).map((p) => p.stop()));
  });

  async function verifierServedBy(handler: ConstructorParameters<typeof HttpPeer>[0]): Promise<TokenVerifier> {
    const peer = await new HttpPeer(handler).start();
    peers.push(peer);
    const env = { AUTH_JWT_SECRET: 'x'.repeat(32), AUTH_JWKS_URL: `${peer.url}/jwks`, JWT_MAX_TTL: 86_400 } as BaseEnv;
    const verifier = new TokenVerifier(env);
    verifiers.push(verifier);
    return verifier;
  }

  it('accepts a token signed with a key of the set', async () => {
    const sut = await verifierServedBy(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(keySet),
    );
    await expect(sut.verify(token)).resolves.toEqual({ userId: 'user-1', tenantId: 'tenant-1', roles: ['admin'] });
  });

  it('refuses a key set larger than the size bound', async () => {
    const padded = JSON.stringify({ ...JSON.parse(keySet), padding: 'x'.repeat(KEY_SET_LIMITS.maxBytes) });
    const sut = await verifierServedBy(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(padded),
    );
    await expect(sut.verify(token)).resolves.toBeNull();
  });

  it('does not follow a redirect to a key set', async () => {
    const sut = await verifierServedBy((req, res) =>
      req.path === '/jwks'
        ? void res.writeHead(302, { location: '/elsewhere' }).end()
        : void res.writeHead(200, { 'content-type': 'application/json' }).end(keySet),
    );
    await expect(sut.verify(token)).resolves.toBeNull();
  });

  it('gives up on a key set that trickles in past the deadline', async () => {
    const sut = await verifierServedBy((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => (res.writableEnded ? clearInterval(drip) : res.write(' ')), 500);
      res.on('close', () => clearInterval(drip));
    });
    const started = Date.now();
    await expect(sut.verify(token)).resolves.toBeNull();
    expect(Date.now() - started).toBeLessThan(KEY_SET_LIMITS.deadlineMs + 2000);
  }, 15_000);
});
