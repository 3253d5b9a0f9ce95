import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BaseEnv } from '@app/config';
import { TokenVerifier } from './token-verifier';

const ROOT = resolve(__dirname, '../../..');
const SECRET = 'token-script-spec-secret-of-at-least-32-chars';

/** `npm run token -- <args>`, as a newcomer runs it. */
function token(...args: string[]) {
  return spawnSync(process.execPath, [resolve(ROOT, 'scripts/token.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, AUTH_JWT_SECRET: SECRET },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

/** The demo tenant and admin user `npm start` signs its own token for. */
function startScriptConstant(name: string): string {
  return new RegExp(`const ${name} = '([^']+)'`).exec(readFileSync(resolve(ROOT, 'scripts/start.js'), 'utf8'))![1];
}

describe('scripts/token.js (npm run token)', () => {
  const verifier = new TokenVerifier({ AUTH_JWT_SECRET: SECRET, JWT_MAX_TTL: 86_400 } as BaseEnv);

  it('prints its usage for --help and exits 0', () => {
    const res = token('--help');
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('Usage: npm run token --');
    expect(res.stdout).toContain('--roles');
    expect(res.stderr).toBe('');
  });

  it('signs an admin token for the demo tenant and admin user without arguments', async () => {
    const res = token();
    expect(res.status).toBe(0);
    expect(await verifier.verify(res.stdout.trim())).toEqual({
      tenantId: startScriptConstant('DEMO_TENANT'),
      userId: startScriptConstant('DEMO_ADMIN'),
      roles: ['admin'],
    });
  });

  it('takes tenant, user and roles, and refuses an unknown option with the usage', async () => {
    const res = token('--tenant', 't1', '--user', 'u1', '--roles', 'agent-runtime, viewer');
    expect(await verifier.verify(res.stdout.trim())).toEqual({
      tenantId: 't1',
      userId: 'u1',
      roles: ['agent-runtime', 'viewer'],
    });
    const unknown = token('--tenat', 't1');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--tenat'");
    expect(unknown.stderr).toContain('Usage: npm run token --');
  });

  it('says what --expires takes when it cannot read it, and prints nothing on stdout then', () => {
    const res = token('--expires', '5x');
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      '--expires takes a number and a unit, s, m, h or d, such as 90s, 30m, 12h or 1d (got "5x").\n',
    );
    expect(token('--expires', '30m').status).toBe(0);
  });

  it('prints the token alone on stdout under npm run -s, for TOKEN=$(npm run -s token)', () => {
    const res = spawnSync('npm', ['run', '-s', 'token', '--', '--roles', 'agent-runtime'], {
      cwd: ROOT,
      env: { ...process.env, AUTH_JWT_SECRET: SECRET },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });
});
