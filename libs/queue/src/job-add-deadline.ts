/** How long a job add made on an HTTP request's path waits for Redis before the request is answered without it. */
export const JOB_ADD_DEADLINE_MS = 2000;

/**
 * Redis did not take a job in time. Its code makes it an infrastructure error, which the error filter answers
 * 503 NOT_READY with Retry-After.
 */
export class JobAddTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(ms: number) {
    super(`Redis did not take the job within ${ms} ms`);
    this.name = 'JobAddTimeoutError';
  }
}

/**
 * Waits for a job add at most `ms`. The queues' clients wait for Redis rather than fail (maxRetriesPerRequest:
 * null), which suits workers but would hold an HTTP request for a whole outage. The add itself goes on and may
 * land once Redis is back (ioredis keeps the command): job ids make it land once.
 */
export async function addedWithin<T>(adding: Promise<T>, ms = JOB_ADD_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new JobAddTimeoutError(ms)), ms)));
  try {
    return await Promise.race([adding, late]);
  } finally {
    clearTimeout(timer);
  }
}
