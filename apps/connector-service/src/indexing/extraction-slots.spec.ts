import Bull, { Job, Queue } from 'bull';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { FairShare } from '@app/queue';
import { deleteKeys } from '@app/redis';
import { eventually } from '@app/testing';
import { extractionSlots, INDEXING_FAIR_SHARE } from './indexing.jobs';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Through the real fair share (Redis scripts, Bull) with a worker's extraction slots: what a tenant's
// extractions may hold decides whether its text is extracted in every process or in one.
describe('a worker process with two extraction processes', () => {
  const prefix = `extraction-slots-${randomUUID()}`;
  const queue = new Bull<{ tenant: string }>('connector-indexing', REDIS_URL, { prefix });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const fair = new FairShare(queue as Queue, redis, prefix, INDEXING_FAIR_SHARE);
  const running = new Map<string, string>();
  const finishers: Array<() => void> = [];
  let ending = false;

  afterAll(async () => {
    ending = true; // the jobs admitted as these end finish at once
    finishers.forEach((finish) => finish());
    await fair.onApplicationShutdown();
    await deleteKeys({ url: REDIS_URL }, `${prefix}:*`);
  });

  it("keeps both threads busy with a lone tenant's extractions, one more job each reading or saving, and one slot for a newcomer", async () => {
    const slots = extractionSlots(2);
    void queue.process('extract', slots.slots, (job: Job<{ tenant: string }>) =>
      fair.run(job, () => {
        running.set(String(job.id), job.data.tenant);
        return ending ? Promise.resolve() : new Promise<void>((resolve) => finishers.push(resolve));
      }),
    );
    await fair.serve(slots);
    const job = (tenant: string, i: number) => ({
      tenantId: tenant,
      job: { id: `${tenant}${i}`, name: 'extract', data: { tenant } },
    });
    await fair.addMany(Array.from({ length: 10 }, (_, i) => job('a', i)));
    await eventually(() => running.size === 4);
    await after(500);
    expect(running.size).toBe(4);
    await fair.addMany([job('b', 0)]);
    await eventually(() => [...running.values()].includes('b'));
  }, 30_000);
});
