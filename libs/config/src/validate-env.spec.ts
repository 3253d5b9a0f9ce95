import { randomBytes } from 'node:crypto';
import { IsBoolean } from 'class-validator';
import { BaseEnv, booleanFromEnv } from './base-env';
import { validateEnv } from './validate-env';

describe(validateEnv.name, () => {
  const valid = {
    DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
    AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '3001',
    PUBLIC_BASE_URL: 'http://localhost:3001',
  };

  it('applies defaults and converts numbers', () => {
    const sut = validateEnv(BaseEnv, valid);
    expect(sut.PORT).toBe(3001);
    expect(sut.PROCESS_ROLE).toBe('all');
    expect(sut.REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('reads "false" as false and "true" as true', () => {
    class FlagEnv extends BaseEnv {
      @IsBoolean()
      @booleanFromEnv()
      FLAG: boolean = false;
    }
    expect(validateEnv(FlagEnv, { ...valid, FLAG: 'false' }).FLAG).toBe(false);
    expect(validateEnv(FlagEnv, { ...valid, FLAG: 'true' }).FLAG).toBe(true);
    expect(validateEnv(FlagEnv, valid).FLAG).toBe(false);
  });

  it('names every missing or malformed variable', () => {
    const { DATABASE_URL: _omit, ...rest } = valid;
    expect(() => validateEnv(BaseEnv, { ...rest, PROCESS_ROLE: 'both' })).toThrow(
      /DATABASE_URL[\s\S]*PROCESS_ROLE|PROCESS_ROLE[\s\S]*DATABASE_URL/,
    );
  });

  it('takes AUTH_JWKS_URL over https only, unless ALLOW_INSECURE_URLS is true', () => {
    expect(
      validateEnv(BaseEnv, { ...valid, AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json' }).AUTH_JWKS_URL,
    ).toBe('https://id.example.com/.well-known/jwks.json');
    expect(() => validateEnv(BaseEnv, { ...valid, AUTH_JWKS_URL: 'http://id.example.com/jwks' })).toThrow(
      /AUTH_JWKS_URL must be an https URL/,
    );
    expect(
      validateEnv(BaseEnv, { ...valid, AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks', ALLOW_INSECURE_URLS: 'true' })
        .ALLOW_INSECURE_URLS,
    ).toBe(true);
  });

  it('reads AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE as optional, non-empty strings', () => {
    expect(
      validateEnv(BaseEnv, { ...valid, AUTH_JWT_ISSUER: 'https://id.example.com', AUTH_JWT_AUDIENCE: 'platform' }),
    ).toMatchObject({
      AUTH_JWT_ISSUER: 'https://id.example.com',
      AUTH_JWT_AUDIENCE: 'platform',
    });
    expect(() => validateEnv(BaseEnv, { ...valid, AUTH_JWT_ISSUER: '' })).toThrow(/AUTH_JWT_ISSUER/);
  });

  it('takes REDIS_CLUSTER_NODES as host:port pairs, with REDIS_URL naming no database but 0', () => {
    const nodes = 'redis-0.redis:6379, redis-1.redis:6379,10.0.0.7:7000,[fd00::7]:7001';
    expect(validateEnv(BaseEnv, { ...valid, REDIS_CLUSTER_NODES: nodes }).REDIS_CLUSTER_NODES).toBe(nodes);
    expect(validateEnv(BaseEnv, { ...valid, REDIS_CLUSTER_NODES: '' }).REDIS_CLUSTER_NODES).toBe('');
    expect(
      validateEnv(BaseEnv, { ...valid, REDIS_URL: 'rediss://:pw@ignored:6379/0', REDIS_CLUSTER_NODES: 'r:6379' }),
    ).toMatchObject({ REDIS_URL: 'rediss://:pw@ignored:6379/0' });
    for (const bad of ['redis-0', 'redis-0:6379;redis-1:6379', 'redis://redis-0:6379'])
      expect(() => validateEnv(BaseEnv, { ...valid, REDIS_CLUSTER_NODES: bad })).toThrow(
        /REDIS_CLUSTER_NODES must be comma-separated host:port pairs/,
      );
    expect(() =>
      validateEnv(BaseEnv, { ...valid, REDIS_URL: 'redis://r:6379/2', REDIS_CLUSTER_NODES: 'r:6379' }),
    ).toThrow(/REDIS_URL must name no database but 0 when REDIS_CLUSTER_NODES is set/);
    expect(validateEnv(BaseEnv, { ...valid, REDIS_URL: 'redis://r:6379/2' }).REDIS_URL).toBe('redis://r:6379/2');
  });
});
