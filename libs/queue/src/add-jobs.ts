import type { JobOptions, Queue } from 'bull';

export interface JobToAdd<T> {
  name: string;
  data: T;
  opts: JobOptions & { jobId: string };
}

/**
 * Adds jobs in one round trip and rejects when Redis refused any of them. Bull's own `addBulk` resolves
 * then too (it ignores the errors of its MULTI), so an outbox would mark events published that never were.
 */
export async function addJobs<T>(queue: Queue<T>, jobs: Array<JobToAdd<T>>): Promise<void> {
  const added = await queue.addBulk(jobs);
  const refused = jobs.filter((job, i) => String(added[i]?.id) !== job.opts.jobId).length;
  if (refused) throw new Error(`Redis refused ${refused} of ${jobs.length} jobs on ${queue.name}`);
}
