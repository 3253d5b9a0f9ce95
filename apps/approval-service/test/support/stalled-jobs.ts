import type { Queue } from 'bull';
import { after } from '@app/testing';

/**
 * What a worker killed while holding a job leaves, again and again: the job active, its lock gone. Bull's stalled
 * check hands it back to waiting until it has stalled more than MAX_STALLED_COUNT (2) times, then fails it without
 * our handler. The queue must be paused in this process (`queue.pause(true, true)`) so no worker takes it for real.
 * Returns how often the job was taken.
 */
export async function stallUntilFailed(queue: Queue, jobId: string): Promise<number> {
  let taken = 0;
  for (;;) {
    const job = await queue.getJob(jobId);
    if (job && (await job.isFailed())) return taken;
    if ((await queue.client.lrem(queue.toKey('wait'), 0, jobId)) > 0) {
      await queue.client.lpush(queue.toKey('active'), jobId);
      taken++;
    }
    await after(100);
  }
}
