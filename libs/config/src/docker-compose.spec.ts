import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

// js-yaml comes with @nestjs/swagger; it has no type declarations here.
const { load } = require('js-yaml') as { load: (text: string) => unknown };

interface ComposeService {
  ports?: string[];
  command?: string[];
  environment?: Record<string, string>;
}

const ROOT = resolve(__dirname, '../../..');
const compose = load(readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};
const envExample = readFileSync(resolve(ROOT, '.env.example'), 'utf8');
const SECRET_FROM_ENV = /^\$\{[A-Z_]+:\?[^}]+\}$/;

describe('docker-compose.yml', () => {
  const { postgres, redis, ...apps } = compose.services;

  it('publishes no port of PostgreSQL or Redis beyond this machine', () => {
    for (const store of [postgres, redis]) {
      for (const port of store.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('publishes every port on this machine only, unless BIND_ADDRESS in .env opens the services (never the simulator)', () => {
    const { 'document-system-simulator': simulator, ...services } = apps;
    expect(Object.keys(services).sort()).toEqual(['approval-service', 'connector-service']);
    for (const app of Object.values(services)) {
      expect(app.ports?.length).toBeGreaterThan(0);
      for (const port of app.ports ?? []) expect(port).toMatch(/^\$\{BIND_ADDRESS:-127\.0\.0\.1\}:\d+:\d+$/);
    }
    expect(simulator.ports).toEqual(['127.0.0.1:3003:3003']);
  });

  it('allows plain-http URLs (OAuth endpoints, webhooks) only when .env says so', () => {
    for (const app of Object.values(apps).filter((a) => a.environment?.DATABASE_URL)) {
      expect(app.environment!.ALLOW_INSECURE_URLS).toBe('${ALLOW_INSECURE_URLS:-false}');
      expect(app.environment!.WEBHOOK_ALLOW_INSECURE).toBe('${WEBHOOK_ALLOW_INSECURE:-false}');
    }
  });

  it('allows calls to private networks only when .env says so', () => {
    for (const app of Object.values(apps).filter((a) => a.environment?.DATABASE_URL)) {
      expect(app.environment!.ALLOW_PRIVATE_NETWORKS).toBe('${ALLOW_PRIVATE_NETWORKS:-false}');
      expect(app.environment!.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe('${WEBHOOK_ALLOW_PRIVATE_NETWORKS:-false}');
    }
  });

  it('keeps /metrics closed unless .env gives it a METRICS_TOKEN or opens it with METRICS_PUBLIC=true', () => {
    for (const app of Object.values(apps).filter((a) => a.environment?.DATABASE_URL)) {
      expect(app.environment!.METRICS_TOKEN).toBe('${METRICS_TOKEN:-}');
      expect(app.environment!.METRICS_PUBLIC).toBe('${METRICS_PUBLIC:-false}');
    }
  });

  it('runs Redis with a password from .env, and gives it to every service that uses Redis', () => {
    expect(redis.command).toEqual(['redis-server', '--requirepass', expect.stringMatching(SECRET_FROM_ENV)]);
    const users = Object.values(apps).filter((app) => app.environment?.REDIS_URL);
    expect(users.length).toBeGreaterThan(0);
    for (const app of users)
      expect(app.environment!.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379$/);
  });

  it('takes every secret from .env, with no default', () => {
    expect(postgres.environment!.POSTGRES_PASSWORD).toMatch(SECRET_FROM_ENV);
    for (const app of Object.values(apps).filter((a) => a.environment?.DATABASE_URL)) {
      expect(app.environment!.DATABASE_URL).toContain('${POSTGRES_PASSWORD:?');
      expect(app.environment!.AUTH_JWT_SECRET).toMatch(SECRET_FROM_ENV);
      expect(app.environment!.ENCRYPTION_KEY).toMatch(SECRET_FROM_ENV);
    }
  });

  it('names in .env.example every variable it reads from .env', () => {
    const read = new Set(
      [...readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8').matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]),
    );
    for (const name of read) expect(envExample).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});
