import type { Queue } from 'bull';

/** The reason Bull publishes for a job it failed because it stalled more than `maxStalledCount` times. */
const STALLED_TOO_OFTEN = 'job stalled more than maxStalledCount';

/**
 * Calls `listener` with the id of each job of `queue` that Bull failed because the workers holding it stopped
 * too often (a job that ends every worker that runs it). Bull fails such a job in its stalled check, without
 * our handler, and deletes it there when it is removed on failure: its 'failed' event then carries no job,
 * only the one it publishes names it. Every process subscribed hears it. Resolves once subscribed: a worker
 * runs its first stalled check as it starts taking jobs, so subscribe before.
 */
export async function onStalledOut(queue: Queue, listener: (jobId: string) => void): Promise<void> {
  queue.on('global:failed', (jobId: string, reason: string) => {
    if (reason === STALLED_TOO_OFTEN) listener(jobId);
  });
  // Bull's own Job#finished waits for the subscription this way; a second call returns the first's promise.
  await (queue as unknown as { _registerEvent(event: string): Promise<unknown> })._registerEvent('global:failed');
}
