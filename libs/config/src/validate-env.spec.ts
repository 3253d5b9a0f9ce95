import { BaseEnv } from './base-env';
import { validateEnv } from './validate-env';

describe(validateEnv.name, () => {
  const valid = {
    DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
    AUTH_JWT_SECRET: 'x'.repeat(32),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
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
    expect(validateEnv(BaseEnv, { ...valid, LOG_PRETTY: 'false' }).LOG_PRETTY).toBe(false);
    expect(validateEnv(BaseEnv, { ...valid, LOG_PRETTY: 'true' }).LOG_PRETTY).toBe(true);
    expect(validateEnv(BaseEnv, valid).LOG_PRETTY).toBe(false);
  });

  it('names every missing or malformed variable', () => {
    const { DATABASE_URL: _omit, ...rest } = valid;
    expect(() => validateEnv(BaseEnv, { ...rest, PROCESS_ROLE: 'both' })).toThrow(
      /DATABASE_URL[\s\S]*PROCESS_ROLE|PROCESS_ROLE[\s\S]*DATABASE_URL/,
    );
  });
});
