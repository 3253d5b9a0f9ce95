import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { ApprovalDecisionEvent, SharedQueue } from '@app/contracts/payloads';
import { deleteKeys, redisConnectionOf } from '@app/redis';
import { eventually, HttpPeer, isolatedDatabase, testCaller, TestCaller } from '@app/testing';
import { replayDecisions } from '../src/outbox/replay-decisions.command';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from './support/approval-app';

const ROOT = resolve(__dirname, '../../..');

/** `npm run approvals:replay-decisions -- <args>`, as an operator runs it from a checkout: what it printed and logged. */
function npmReplay(args: string[], env: Record<string, unknown>) {
  const vars = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
  const child = spawn('npm', ['run', '-s', 'approvals:replay-decisions', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...vars, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  return new Promise<{ code: number | null; out: string; logged: Array<Record<string, unknown>> }>((done) =>
    child.on('exit', (code) => done({ code, out, logged: jsonLines(err) })),
  );
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * The command run in this process through its module: its exit code and what it printed. (Its log lines go
 * to the first pino logger of the process, the app's: nestjs-pino keeps one out of a request's context.)
 */
async function inProcessReplay(args: string[], env: Record<string, unknown>) {
  const printed: string[] = [];
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => printed.push(chunk.toString()));
  const code = await replayDecisions(args, { out, err: out, log: new PassThrough().resume() }, env);
  return { code, out: printed.join('') };
}

describe('Replaying decision events after Redis lost its data (npm run approvals:replay-decisions)', () => {
  let sut: ApprovalTestApp;
  let receiver: HttpPeer;
  let runtime: TestCaller;

  beforeAll(async () => {
    // A database of its own: the command replays every tenant's published rows, and other files' too otherwise.
    sut = await startApprovalApp({ DATABASE_URL: await isolatedDatabase() });
    receiver = await new HttpPeer().start();
    runtime = await testCaller({ roles: ['agent-runtime'] });
  });

  afterAll(async () => {
    await receiver?.stop();
    await sut?.close();
  });

  /** An approval decided (cancelled), its event published and its outbox row marked: the original payload. */
  async function decidedAndPublished(): Promise<ApprovalDecisionEvent> {
    const http = () => request(sut.app.getHttpServer());
    const sent = receiver.received.length;
    const { approvalId } = (
      await http().post('/v1/approvals').set(runtime.auth).send(approvalRequest(receiver.url)).expect(201)
    ).body;
    await receiver.waitForRequests(sent + 1);
    await http().post(`/v1/approvals/${approvalId}/cancel`).set(runtime.auth).expect(200);
    const event = await sut.decision(approvalId);
    await eventually(async () => {
      const [row] = await sut.db.query(
        'SELECT "publishedAt" FROM approval.decision_outbox WHERE "approvalId" = $1 AND "publishedAt" IS NOT NULL',
        [approvalId],
      );
      return row;
    });
    return event;
  }

  const decisionJobs = () => sut.decisions.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'paused']);

  it('puts back exactly the lost events published since --since, once, with their original payload', async () => {
    const before = await decidedAndPublished();
    const since = new Date(Date.now() + 5);
    await eventually(() => Date.now() > since.getTime() + 5);
    const lost = await decidedAndPublished();
    expect((await decisionJobs()).length).toBe(2);

    // Redis restarts without its data: the decision queue's keys are gone, the outbox rows stay marked published.
    const prefix = String(sut.env.QUEUE_PREFIX);
    await deleteKeys(
      redisConnectionOf(sut.env as { REDIS_URL: string }),
      `${prefix}:${SharedQueue.ApprovalDecisions}:*`,
    );
    expect(await decisionJobs()).toEqual([]);
    const args = ['--since', since.toISOString()];

    const dryRun = await inProcessReplay([...args, '--dry-run'], sut.env);
    expect(dryRun.code).toBe(0);
    expect(dryRun.out).toContain(lost.approvalId);
    expect(dryRun.out).not.toContain(before.approvalId);
    expect(dryRun.out).toMatch(/would replay 1 decision event/i);
    expect(await decisionJobs()).toEqual([]);

    const otherTenant = await inProcessReplay([...args, '--tenant', 'another-tenant'], sut.env);
    expect(otherTenant).toMatchObject({ code: 0, out: expect.stringMatching(/replayed 0 decision events/i) });
    expect(await decisionJobs()).toEqual([]);

    const replay = await npmReplay([...args, '--tenant', lost.tenantId], sut.env);
    expect(replay).toMatchObject({ code: 0, out: expect.stringMatching(/replayed 1 decision event/i) });
    const jobs = await decisionJobs();
    expect(jobs.map((job) => ({ id: job.id, name: job.name, data: job.data }))).toEqual([
      { id: lost.approvalId, name: 'decision', data: lost },
    ]);
    expect(replay.logged).toContainEqual(
      expect.objectContaining({ level: 30, msg: 'decision event replayed', approvalId: lost.approvalId }),
    );
    expect(replay.logged).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'decision events replayed',
        since: since.toISOString(),
        tenantId: lost.tenantId,
        dryRun: false,
        found: 1,
        added: 1,
        held: 0,
      }),
    );

    // The runtime has not consumed it yet: a second replay finds it held by Bull and adds nothing.
    const again = await inProcessReplay(args, sut.env);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/0 published again to approval-decisions, 1 still held/i);
    expect((await decisionJobs()).map((job) => job.id)).toEqual([lost.approvalId]);
  }, 120_000);

  it('refuses a run without a valid --since', async () => {
    const run = await inProcessReplay(['--since', 'yesterday'], sut.env);
    expect(run.code).toBe(2);
    expect(run.out).toMatch(/--since/);
  });
});
