import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import Bull, { JobCounts, Queue } from 'bull';
import type { Counter, Gauge } from 'prom-client';
import { FairShare } from '@app/queue';
import { ScrapeCollector, singleFlight, withTimeout } from './scrape-collector';

export const QUEUE_JOBS = 'queue_jobs';
export const QUEUE_COUNT_TIMEOUTS = 'queue_count_timeouts_total';
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** A slow Redis leaves the queue out of this scrape instead of holding it. */
const COUNT_TIMEOUT_MS = 800;

type CountedQueue = { name: string; read: () => Promise<JobCounts> };

/**
 * Jobs per queue and state, read from Bull (`getJobCounts`) on each scrape, for every queue of the app. A
 * queue with a fair share counts the jobs waiting there for a slot as waiting, or delayed, as Bull would.
 * One read per queue at a time: a scrape that finds one unanswered waits for it rather than asking again.
 */
@Injectable()
export class QueueDepthCollector extends ScrapeCollector implements OnApplicationBootstrap {
  private queues: CountedQueue[] = [];
  private readonly fairShares = new Map<string, FairShare>();

  constructor(
    private readonly discovery: DiscoveryService,
    @InjectMetric(QUEUE_JOBS) private readonly jobs: Gauge<'queue' | 'state'>,
    @InjectMetric(QUEUE_COUNT_TIMEOUTS) private readonly timeouts: Counter<'queue'>,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const byName = new Map<string, Queue>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as unknown;
      if (instance instanceof Bull && !byName.has(instance.name)) byName.set(instance.name, instance);
      if (instance instanceof FairShare) this.fairShares.set(instance.queueName, instance);
    }
    this.queues = [...byName.values()].map((queue) => ({
      name: queue.name,
      read: singleFlight(() => this.read(queue)),
    }));
  }

  async collect(): Promise<void> {
    await Promise.all(this.queues.map((queue) => this.count(queue)));
  }

  private async count({ name, read }: CountedQueue): Promise<void> {
    try {
      const counts = await withTimeout(read(), COUNT_TIMEOUT_MS, `counting ${name}`);
      for (const state of QUEUE_STATES) this.jobs.set({ queue: name, state }, counts[state] ?? 0);
    } catch {
      // No stale depth: the queue is absent from this scrape, and the timeout is counted.
      for (const state of QUEUE_STATES) this.jobs.remove({ queue: name, state });
      this.timeouts.inc({ queue: name });
    }
  }

  private async read(queue: Queue): Promise<JobCounts> {
    const [counts, fair] = await Promise.all([queue.getJobCounts(), this.fairShares.get(queue.name)?.state()]);
    if (fair) {
      counts.waiting += Object.values(fair.waiting).reduce((sum, n) => sum + n, 0);
      counts.delayed += fair.delayed;
    }
    return counts;
  }
}
