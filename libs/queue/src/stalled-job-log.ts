import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import Bull, { Job, Queue } from 'bull';

/** The ids in a job's data that name what it works for; nothing else of the data is logged (it may hold secrets). */
const OWNER_IDS = ['syncRunId', 'approvalId', 'documentId'] as const;
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

/**
 * Logs, in the process that moved it back, every job a dead or frozen worker held: Bull emits `stalled`
 * only there, so this is the one sign of a crash that the workers themselves leave.
 */
@Injectable()
export class StalledJobLog implements OnApplicationBootstrap {
  private readonly logger = new Logger('Queue');

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const queues = new Set(
      this.discovery
        .getProviders()
        .map((wrapper) => wrapper.instance as unknown)
        .filter((instance): instance is Queue => instance instanceof Bull),
    );
    for (const queue of queues) {
      queue.on('stalled', (job: Job) => this.logger.warn(jobRef(queue, job), 'job of a stopped worker taken over'));
      queue.on('failed', (job: Job, error: Error) => {
        if (error?.message === STALLED_TOO_OFTEN)
          this.logger.error(jobRef(queue, job), 'job failed: its workers stopped too often while holding it');
      });
    }
  }
}

function jobRef(queue: Queue, job: Job | string): Record<string, string> {
  if (typeof job !== 'object' || !job) return { queue: queue.name, jobId: String(job) };
  const ref: Record<string, string> = { queue: queue.name, jobId: String(job.id), jobName: job.name };
  for (const key of OWNER_IDS) {
    const value: unknown = job.data?.[key];
    if (typeof value === 'string' && value.length <= 100) ref[key] = value;
  }
  return ref;
}
