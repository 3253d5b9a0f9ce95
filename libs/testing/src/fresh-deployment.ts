import type { INestApplication } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import request from 'supertest';
import { openApiDocument } from './http-app';
import { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from './test-env';

/** Every variable that opens something (docs/configuration.md): none is set on a fresh deployment. */
const OPENING_VARIABLES = [
  'ALLOW_INSECURE_URLS',
  'ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_ALLOW_INSECURE',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'CONSOLE_DEV_LOGIN',
  'CORS_ORIGINS',
  'METRICS_PUBLIC',
  'METRICS_TOKEN',
  'QUEUE_DASHBOARD_TENANT',
  'TRUST_PROXY',
  'AUTH_JWKS_URL',
  'AUTH_JWT_ISSUER',
  'AUTH_JWT_AUDIENCE',
  'JWT_MAX_TTL',
  'WEBHOOK_SIGNING_SECRET',
  'BIND_ADDRESS',
];

/**
 * What a fresh production deployment must give (deploy/kubernetes/secrets/*.env.example and the ConfigMaps'
 * addresses): the stores, the two secrets and the public address; everything else at its default. Takes the
 * opening variables out of this test file's process.env, where an app started earlier may have put them.
 */
export function freshDeploymentEnv(extra: Record<string, unknown> = {}): Record<string, unknown> {
  for (const name of OPENING_VARIABLES) delete process.env[name];
  return {
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `fresh-${randomBytes(4).toString('hex')}`,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PUBLIC_BASE_URL: 'https://service.example.com',
    PORT: 0,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/** Each operation of the app's OpenAPI document, as `METHOD /path`, with what it answers a caller without a token. */
export async function answersWithoutToken(app: INestApplication): Promise<Record<string, number>> {
  const document = await openApiDocument(app);
  const answers: Record<string, number> = {};
  for (const [path, operations] of Object.entries(document.paths)) {
    const concrete = path.replace(/\{[^}]+\}/g, () => randomUUID());
    for (const method of Object.keys(operations).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
      const res = await request(app.getHttpServer())
        [method as 'get'](concrete)
        .set('Accept', 'application/json')
        .send(method === 'get' || method === 'delete' ? undefined : {});
      answers[`${method.toUpperCase()} ${path}`] = res.status;
    }
  }
  return answers;
}

/** Platform tokens that must all be refused (401), each named for what is wrong with it. */
export async function refusableTokens(claims: { tenant: string; roles: string[] }): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const key = new TextEncoder().encode(TEST_JWT_SECRET);
  const signed = (payload: Record<string, unknown>, secret = key) =>
    new SignJWT({ ...claims, ...payload }).setProtectedHeader({ alg: 'HS256' }).setSubject('someone').sign(secret);
  const unsigned = (header: Record<string, unknown>) =>
    [header, { ...claims, sub: 'someone', exp: now + 600 }]
      .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
      .join('.');
  return {
    'alg none': `${unsigned({ alg: 'none' })}.`,
    'alg none, typ JWT': `${unsigned({ alg: 'none', typ: 'JWT' })}.`,
    'RS256 header, no key set': `${unsigned({ alg: 'RS256' })}.${Buffer.from('x').toString('base64url')}`,
    'another secret': await signed({ exp: now + 600 }, new TextEncoder().encode(`${TEST_JWT_SECRET}-other`)),
    'no exp': await signed({}),
    'expired a second ago': await signed({ exp: now - 1 }),
    'not valid before a minute from now': await signed({ exp: now + 600, nbf: now + 60 }),
    'exp as a string': await signed({ exp: String(now + 600) }),
    'no tenant': await new SignJWT({ roles: claims.roles, exp: now + 600 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .sign(key),
  };
}

/** The CORS headers the app sends a foreign origin: a preflight of `preflightPath` and a GET of its liveness probe. */
export async function corsHeadersToForeignOrigin(app: INestApplication, preflightPath: string): Promise<string[]> {
  const origin = 'https://console.example.com';
  const preflight = await request(app.getHttpServer())
    .options(preflightPath)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST');
  const get = await request(app.getHttpServer()).get('/health/live').set('Origin', origin);
  return [preflight.headers, get.headers].flatMap((h) => Object.keys(h).filter((k) => /^access-control/.test(k)));
}

/** Of `refusableTokens`, those a GET of `path` did not answer 401, with what it answered. */
export async function tokensNotRefused(
  app: INestApplication,
  path: string,
  claims: { tenant: string; roles: string[] },
): Promise<Array<[string, number]>> {
  const answers: Array<[string, number]> = [];
  for (const [name, token] of Object.entries(await refusableTokens(claims)))
    answers.push([name, (await request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${token}`)).status]);
  return answers.filter(([, status]) => status !== 401);
}
