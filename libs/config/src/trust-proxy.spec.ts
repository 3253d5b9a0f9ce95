import { randomBytes } from 'node:crypto';
import { BaseEnv } from './base-env';
import { validateEnv } from './validate-env';
import { parseTrustProxy } from './trust-proxy';

describe(parseTrustProxy.name, () => {
  it('trusts no proxy by default', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy(' ')).toBe(false);
  });

  it('reads a hop count', () => {
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('0')).toBe(0);
  });

  it('reads addresses and CIDR ranges of both families', () => {
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,fd00::/8, loopback')).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it.each(['yes', '10.0.0.0/33', '10.0.0/8', '1.2.3.4/8/1', 'fd00::/129', '10.0.0.1,', '-1', '1.5', '99'])(
    'refuses %p',
    (raw) => {
      expect(parseTrustProxy(raw)).toBeNull();
    },
  );
});

describe('TRUST_PROXY in the environment', () => {
  const valid = {
    DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
    AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '3001',
    PUBLIC_BASE_URL: 'http://localhost:3001',
  };

  it('defaults to none and accepts a number', () => {
    expect(validateEnv(BaseEnv, valid).TRUST_PROXY).toBe('');
    expect(parseTrustProxy(validateEnv(BaseEnv, { ...valid, TRUST_PROXY: 1 }).TRUST_PROXY)).toBe(1);
  });

  it('stops the service on a malformed value, naming it', () => {
    expect(() => validateEnv(BaseEnv, { ...valid, TRUST_PROXY: 'all' })).toThrow(/TRUST_PROXY/);
  });
});
