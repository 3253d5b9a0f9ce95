import type { DiscoveryService } from '@nestjs/core';
import Bull, { JobCounts } from 'bull';
import { Counter, Gauge } from 'prom-client';
import { QueueDepthCollector } from './queue-depth.collector';

const COUNTS: JobCounts = { waiting: 3, active: 1, completed: 0, failed: 0, delayed: 2 };

describe(QueueDepthCollector.name, () => {
  let unanswered: (counts: JobCounts) => void = () => undefined;
  const getJobCounts = jest.fn<Promise<JobCounts>, []>();
  const jobs = new Gauge({ name: 'queue_jobs', help: 'test', labelNames: ['queue', 'state'], registers: [] });
  const timeouts = new Counter({
    name: 'queue_count_timeouts_total',
    help: 'test',
    labelNames: ['queue'],
    registers: [],
  });
  let sut: QueueDepthCollector;

  beforeEach(() => {
    const queue = Object.assign(Object.create(Bull.prototype) as Bull.Queue, { name: 'connector-sync', getJobCounts });
    const discovery = { getProviders: () => [{ instance: queue }] } as unknown as DiscoveryService;
    sut = new QueueDepthCollector(discovery, jobs, timeouts);
    sut.onApplicationBootstrap();
  });

  const waiting = async () => (await jobs.get()).values.find((v) => v.labels.state === 'waiting')?.value;

  it('asks Redis once per queue while its answer is late, leaving the queue out of the scrapes meanwhile', async () => {
    getJobCounts.mockImplementationOnce(() => new Promise((resolve) => (unanswered = resolve)));
    getJobCounts.mockResolvedValue(COUNTS);

    await Promise.all([sut.collect(), sut.collect(), sut.collect()]);
    await sut.collect();
    expect(getJobCounts).toHaveBeenCalledTimes(1);
    expect(await waiting()).toBeUndefined();
    expect((await timeouts.get()).values[0].value).toBe(4);

    unanswered(COUNTS);
    await sut.collect();
    expect(await waiting()).toBe(3);
    await sut.collect();
    expect(getJobCounts).toHaveBeenCalledTimes(2);
  });
});
