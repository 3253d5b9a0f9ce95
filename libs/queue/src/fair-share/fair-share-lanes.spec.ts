import Bull, { Job, Queue } from 'bull';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { deleteKeys } from '@app/redis';
import { eventually } from '@app/testing';
import { FairShare } from './fair-share';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A test job: hangs until finished, or ends after `ms`. */
interface LaneJob {
  tenant: string;
  lane?: string;
  ms?: number;
}

/** Lanes within a tenant's share: a tenant's lanes take turns, each holding at most half of what the tenant may hold. */
describe('FairShare lanes', () => {
  let prefix: string;
  let fair: FairShare;
  let queue: Queue<LaneJob>;
  let starts: Array<{ id: string; lane?: string; at: number }>;
  let running: Map<string, LaneJob>;
  let finishers: Map<string, () => void>;
  let closing: boolean;

  /** One worker process with `slots`, of them `reserved`; a lone tenant may hold half of those not reserved. */
  async function start(slots: number, reserved = 0): Promise<void> {
    queue = new Bull<LaneJob>('lanes-test', REDIS_URL, {
      prefix,
      redis: { maxRetriesPerRequest: null, enableReadyCheck: false },
    });
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null, enableAutoPipelining: true });
    fair = new FairShare(queue as Queue, redis, prefix, { aloneShare: 0.5, leases: { turnMs: 200 } });
    void queue.process('work', slots, (job: Job<LaneJob>) => fair.run(job, () => perform(job)));
    await fair.serve({ slots, reserved });
  }

  async function perform(job: Job<LaneJob>): Promise<void> {
    const id = String(job.id);
    starts.push({ id, lane: job.data.lane, at: Date.now() });
    running.set(id, job.data);
    try {
      if (job.data.ms !== undefined) await after(job.data.ms);
      else if (!closing) await new Promise<void>((resolve) => finishers.set(id, resolve));
    } finally {
      running.delete(id);
    }
  }

  const add = (tenant: string, id: string, lane?: string, extra: Partial<LaneJob> = {}, delayMs = 0) =>
    fair.add(
      tenant,
      { id, name: 'work', data: { tenant, lane, ...extra }, opts: { removeOnComplete: true }, lane },
      delayMs,
    );
  const runningIn = (lane?: string) => [...running.values()].filter((job) => job.lane === lane).length;

  beforeEach(() => {
    prefix = `lanes-${randomUUID()}`;
    starts = [];
    running = new Map();
    finishers = new Map();
    closing = false;
  });

  afterEach(async () => {
    closing = true;
    finishers.forEach((finish) => finish());
    await fair.onApplicationShutdown().catch(() => undefined);
    await deleteKeys({ url: REDIS_URL }, `${prefix}:*`).catch(() => undefined);
  });

  it("holds a lane to half of its tenant's share, and gives the rest to the tenant's other lane", async () => {
    await start(10, 2); // a lone tenant holds at most 4: a lane 2
    for (let i = 0; i < 12; i++) await add('a', `hang-${i}`, 'https://hangs.example');
    await eventually(() => runningIn('https://hangs.example') === 2);
    await after(500);
    expect(runningIn('https://hangs.example')).toBe(2);
    expect((await fair.state()).waiting).toEqual({ a: 10 });

    for (let i = 0; i < 3; i++) await add('a', `prompt-${i}`, 'https://answers.example');
    await eventually(() => runningIn('https://answers.example') === 2, 3000);
    await after(500);
    expect([runningIn('https://hangs.example'), runningIn('https://answers.example')]).toEqual([2, 2]);
    expect((await fair.state()).held).toEqual({ a: 4 });
  });

  it('starts a delayed job of another lane when it is due, ahead of a lane whose backlog waits', async () => {
    await start(10, 2);
    for (let i = 0; i < 12; i++) await add('a', `hang-${i}`, 'https://hangs.example');
    await eventually(() => runningIn('https://hangs.example') === 2);
    const added = Date.now();
    await add('a', 'retry', 'https://retries.example', { ms: 10 }, 1000);
    const started = await eventually(() => starts.find((s) => s.id === 'retry'), 5000, 10);
    expect(started.at - added).toBeGreaterThanOrEqual(950);
    // The hanging lane's backlog never ends: a bound of seconds is room for a loaded machine.
    expect(started.at - added).toBeLessThan(1000 + 2000);
  });

  it('counts a hold in its lane', async () => {
    await start(10, 2);
    expect(await fair.hold('a', 'inline-1', 'https://hangs.example')).toBe(true);
    expect(await fair.hold('a', 'inline-2', 'https://hangs.example')).toBe(true);
    expect(await fair.hold('a', 'inline-3', 'https://hangs.example')).toBe(false);
    expect(await fair.hold('a', 'inline-4', 'https://answers.example')).toBe(true);
    await add('a', 'queued', 'https://hangs.example');
    await after(500);
    expect(starts).toHaveLength(0);
    await fair.release('inline-1');
    await eventually(() => starts.some((s) => s.id === 'queued'), 3000);
  });

  it("gives a lane's slot back when its job ends, and keeps no count of it once every job has ended", async () => {
    await start(10, 2);
    for (let i = 0; i < 4; i++) await add('a', `hang-${i}`, 'https://hangs.example');
    await eventually(() => runningIn('https://hangs.example') === 2);
    finishers.get('hang-0')!();
    await eventually(() => starts.some((s) => s.id === 'hang-2'), 3000);
    ['hang-1', 'hang-2'].forEach((id) => finishers.get(id)!());
    await eventually(() => starts.some((s) => s.id === 'hang-3'), 3000);
    finishers.get('hang-3')!();
    await eventually(async () => (await fair.state()).inUse === 0, 3000);
    const redis = new Redis(REDIS_URL);
    try {
      const base = `${prefix}:fair:lanes-test`;
      expect(await redis.keys(`${base}:lanes*`)).toEqual([]);
      expect(await redis.exists(`${base}:leaseLane`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('puts a tenant whose lanes wait back in the turns when it adds a job, should a process of the code before lanes have dropped it', async () => {
    await start(10, 2);
    for (let i = 0; i < 3; i++) await add('a', `hang-${i}`, 'https://hangs.example');
    await eventually(() => runningIn('https://hangs.example') === 2);
    // A process without lanes, at an admission, finds nothing in the tenant's own list and drops it from the turns.
    const redis = new Redis(REDIS_URL);
    try {
      await redis.lrem(`${prefix}:fair:lanes-test:ring`, 0, 'a');
    } finally {
      redis.disconnect();
    }
    await add('a', 'prompt', 'https://answers.example', { ms: 10 });
    await eventually(() => starts.some((s) => s.id === 'prompt'), 3000);
    finishers.get('hang-0')!();
    await eventually(() => starts.some((s) => s.id === 'hang-2'), 3000);
  });

  it('takes turns between lanes, and runs the jobs without a lane first', async () => {
    await start(1);
    await fair.addMany([
      ...[0, 1, 2].map((i) => ({
        tenantId: 'a',
        job: { id: `x-${i}`, name: 'work', data: { tenant: 'a', lane: 'x', ms: 20 }, lane: 'x' },
      })),
      ...[0, 1].map((i) => ({
        tenantId: 'a',
        job: { id: `y-${i}`, name: 'work', data: { tenant: 'a', lane: 'y', ms: 20 }, lane: 'y' },
      })),
      { tenantId: 'a', job: { id: 'plain', name: 'work', data: { tenant: 'a', ms: 20 } } },
    ]);
    await eventually(() => starts.length === 6, 10_000);
    expect(starts.map((s) => s.id)).toEqual(['plain', 'x-0', 'y-0', 'x-1', 'y-1', 'x-2']);
  });
});
