import type { Job } from 'bull';
import { storableText, validatePayload } from '@app/errors';

export class InvalidJobDataError extends Error {
  constructor(
    readonly queue: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidJobDataError';
  }
}

/**
 * Validates the problems of a payload without touching a job; empty means valid. The same policy as an
 * HTTP body (unknown and prototype keys, U+0000, depth), so a queued request cannot carry what REST refuses.
 */
export function jobDataProblems<T extends object>(
  payloadClass: new () => T,
  data: unknown,
): { value: T; problems: string[] } {
  const { value, problems } = validatePayload(payloadClass, data);
  return { value, problems: problems.map((p) => `${p.field}: ${p.problems.join('; ')}`) };
}

/**
 * Validates a job's payload before a processor touches it. Invalid data is final: the job is
 * discarded (no retry) and fails with the validation message instead of crashing the worker.
 */
export async function validJobData<T extends object>(job: Job, payloadClass: new () => T): Promise<T> {
  const { value, problems } = jobDataProblems(payloadClass, job.data);
  if (problems.length > 0) {
    await job.discard();
    throw new InvalidJobDataError(job.queue.name, `Invalid ${payloadClass.name}: ${problems.join(' | ')}`);
  }
  return value;
}

/**
 * How many bytes a job's data takes in Redis (the JSON its producer stored, as received), asked of Redis: the
 * data is not serialized again to measure it. 0 when the job is gone.
 */
export function storedDataBytes(job: Job): Promise<number> {
  return job.queue.client.hstrlen(job.queue.toKey(String(job.id)), 'data');
}

/** A field of a refused payload as it may be echoed into an event or a row: U+0000 and lone surrogates become U+FFFD. */
export function echoable(value: unknown): string {
  return storableText(String(value ?? ''));
}
