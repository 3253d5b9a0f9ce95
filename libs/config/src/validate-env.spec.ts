import { IsBoolean } from 'class-validator';
import { BaseEnv, booleanFromEnv } from './base-env';
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
});
