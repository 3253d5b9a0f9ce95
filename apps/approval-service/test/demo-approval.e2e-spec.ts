import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { testCaller, TEST_JWT_SECRET } from '@app/testing';
import { ApprovalTestApp, startApprovalApp } from './support/approval-app';

const ROOT = resolve(__dirname, '../../..');
const { DEMO_TENANT } = require('../../../scripts/token');

/** `npm run demo:approval -- <args>`, as a newcomer runs it. */
function demo(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', './scripts/register-paths.js', 'scripts/demo-approval.ts', ...args],
    {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  return new Promise((done) => child.on('exit', (code) => done({ code, out })));
}

describe('npm run demo:approval', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  afterAll(() => redis.quit());

  it('--against-running: the running approval-service decides it for the demo tenant, so the console lists it; the decision event stays for the runtime', async () => {
    const sut: ApprovalTestApp = await startApprovalApp();
    try {
      const run = await demo(['--against-running'], {
        APPROVAL_SERVICE_URL: sut.url,
        QUEUE_PREFIX: String(sut.env.QUEUE_PREFIX),
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
      });
      expect(run).toMatchObject({ code: 0, out: expect.stringContaining('Approved') });
      const executionId = /exec-[0-9a-f]{8}/.exec(run.out)![0];
      const admin = await testCaller({ tenantId: DEMO_TENANT, roles: ['admin'] });
      const listed = await request(sut.app.getHttpServer())
        .get('/v1/approvals')
        .query({ executionId })
        .set(admin.auth)
        .expect(200);
      expect(listed.body).toEqual([
        expect.objectContaining({ executionId, status: 'Approved', comment: 'Within budget' }),
      ]);
      expect((await sut.decision(listed.body[0].id)).outcome).toBe('Approved');
    } finally {
      await sut.close();
    }
  });

  it('by default runs its own approval-service and removes its demo-* Redis keys at the end', async () => {
    const run = await demo([], { DATABASE_URL: String(process.env.DATABASE_URL) });
    expect(run).toMatchObject({ code: 0, out: expect.stringContaining('The run continues on the APPROVED path') });
    const prefix = /queues under (demo-[0-9a-f]{6})/.exec(run.out)?.[1];
    expect(prefix).toEqual(expect.any(String));
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });
});
