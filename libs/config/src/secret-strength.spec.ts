import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as yaml from 'js-yaml';
import { BaseEnv } from './base-env';
import { validateEnv } from './validate-env';

const ROOT = resolve(__dirname, '../../..');
const SECRET_NAME = /SECRET|_KEY|PASSWORD|TOKEN/;

const valid = {
  DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
  AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
  PORT: '3001',
  PUBLIC_BASE_URL: 'http://localhost:3001',
};

/** The line start-up prints for `name` when `value` is refused; null when it is taken. */
function refusal(name: 'AUTH_JWT_SECRET' | 'ENCRYPTION_KEY', value: string): string | null {
  try {
    validateEnv(BaseEnv, { ...valid, [name]: value });
    return null;
  } catch (error) {
    const lines = (error as Error).message.split('\n').filter((line) => line.trim().startsWith(`${name}:`));
    return lines.length === 1 ? lines[0].trim() : `${lines.length} lines: ${(error as Error).message}`;
  }
}

/** `NAME=value` pairs of secrets as an env file or a shell line writes them (comments and `${…}` references left out). */
function assignments(text: string): string[] {
  return [...text.matchAll(/\b([A-Z][A-Z0-9_]*)=("[^"]*"|[^\s#`]+)/g)]
    .filter(([, name]) => SECRET_NAME.test(name))
    .map(([, , value]) => value.replace(/^"|"$/g, ''))
    .filter((value) => value && !value.startsWith('$'));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every secret value the repository publishes where an operator would copy it from. */
function publishedSecrets(): string[] {
  const compose = yaml.load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  const composeValues = Object.values(compose.services).flatMap((service) =>
    Object.entries(service.environment ?? {})
      .filter(([name, value]) => SECRET_NAME.test(name) && !String(value).startsWith('$'))
      .map(([, value]) => String(value)),
  );
  const texts = [join(ROOT, '.env.example'), join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'deploy'))].map((file) =>
    readFileSync(file, 'utf8'),
  );
  return [...new Set([...composeValues, ...texts.flatMap(assignments)])];
}

describe('secrets at start-up', () => {
  it('refuses every secret value the repository publishes, as AUTH_JWT_SECRET and as ENCRYPTION_KEY, in one line naming the variable', () => {
    const published = publishedSecrets();
    expect(published).toContain('change-me-to-32-or-more-random-characters');
    expect(published).toContain('k1:BASE64_32_BYTES');
    for (const value of published) {
      expect([value, refusal('AUTH_JWT_SECRET', value)]).toEqual([value, expect.stringMatching(/^AUTH_JWT_SECRET: /)]);
      expect([value, refusal('ENCRYPTION_KEY', value)]).toEqual([value, expect.stringMatching(/^ENCRYPTION_KEY: /)]);
    }
    expect(refusal('AUTH_JWT_SECRET', 'change-me-to-32-or-more-random-characters')).toBe(
      'AUTH_JWT_SECRET: AUTH_JWT_SECRET is a placeholder published in this repository: set a random value of your own (openssl rand -base64 48)',
    );
  });

  it('refuses a guessable AUTH_JWT_SECRET: one character, a short pattern, a word said again', () => {
    for (const value of ['x'.repeat(40), 'ab'.repeat(20), 'password'.repeat(4), 'Summer2026!'.repeat(3)])
      expect(refusal('AUTH_JWT_SECRET', value)).toMatch(/^AUTH_JWT_SECRET: AUTH_JWT_SECRET is guessable/);
  });

  it('refuses an ENCRYPTION_KEY whose key (current or old) is not 32 random bytes', () => {
    const weak = Buffer.alloc(32, 7).toString('base64');
    expect(refusal('ENCRYPTION_KEY', `k1:${weak}`)).toMatch(/^ENCRYPTION_KEY: ENCRYPTION_KEY has a key \("k1"\)/);
    expect(refusal('ENCRYPTION_KEY', weak)).toMatch(/^ENCRYPTION_KEY: /);
    expect(refusal('ENCRYPTION_KEY', `k2:${randomBytes(32).toString('base64')},k1:${weak}`)).toMatch(/"k1"/);
  });

  it('refuses an ENCRYPTION_KEY that names a key id twice: a rotation under the same id kept the old key current', () => {
    const key = () => randomBytes(32).toString('base64');
    expect(refusal('ENCRYPTION_KEY', `k1:${key()},k1:${key()}`)).toMatch(
      /^ENCRYPTION_KEY: ENCRYPTION_KEY names key "k1" twice/,
    );
    expect(refusal('ENCRYPTION_KEY', `${key()},${key()}`)).toMatch(/names key "k1" twice/); // bare keys are all k1
    expect(refusal('ENCRYPTION_KEY', `k2:${key()},k1:${key()}`)).toBeNull();
  });

  it('takes random secrets, whatever their encoding', () => {
    for (let i = 0; i < 200; i++) {
      for (const secret of [
        randomBytes(16).toString('hex'),
        randomBytes(24).toString('base64url'),
        randomBytes(48).toString('base64'),
      ])
        expect(refusal('AUTH_JWT_SECRET', secret)).toBeNull();
      expect(refusal('ENCRYPTION_KEY', `k1:${randomBytes(32).toString('base64')}`)).toBeNull();
      expect(refusal('ENCRYPTION_KEY', randomBytes(32).toString('base64'))).toBeNull();
    }
  });
});
