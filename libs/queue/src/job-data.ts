import type { Job } from 'bull';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { fieldProblems } from '@app/errors';

export class InvalidJobDataError extends Error {
  constructor(
    readonly queue: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidJobDataError';
  }
}

/** Validates the problems of a payload without touching a job; empty means valid. */
export function jobDataProblems<T extends object>(payloadClass: new () => T, data: unknown): { value: T; problems: string[] } {
  const value = plainToInstance(payloadClass, data ?? {});
  const errors = validateSync(value as object, { whitelist: true, forbidNonWhitelisted: true });
  const problems = fieldProblems(errors).map((p) => `${p.field}: ${p.problems.join('; ')}`);
  return { value, problems };
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
