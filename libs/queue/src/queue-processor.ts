import { OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { InvalidJobDataError, jobDataProblems } from './job-data';
import { JobOf, JobPayloads, QueueContract } from './queue-contract';

/** How one job name is run. */
export interface JobHandler<T> {
  concurrency: number;
  /** Runs the job; what it resolves to is the job's result. */
  run(data: T, job: Job<T>): Promise<unknown>;
  /**
   * Settles a job that will not be tried again: its last attempt failed, or `isFinal` says the error
   * cannot be cured by a retry. Without it, such a job fails as Bull fails it.
   */
  giveUp?(data: T, error: unknown, job: Job<T>): Promise<unknown>;
  isFinal?(error: unknown): boolean;
  /**
   * Answers a payload that fails validation (e.g. with an event that tells the producer); without it the
   * job is discarded and fails with the problems. Either way it is not tried again.
   */
  refuse?(problems: string[], job: Job): Promise<unknown>;
  /** Wraps each run, validation included (e.g. waits for a turn of a gate); the job as Bull gave it (not validated yet). */
  around?(work: () => Promise<unknown>, job: Job): Promise<unknown>;
  /**
   * The queue's FairShare, when its jobs are added through one: the job's slot is given back when it ends
   * for good (outside `around`, so a job waiting at a gate keeps its slot, unless `around` puts it back
   * with `FairShare.putBack`).
   */
  fairShare?: { run<R>(job: Job, work: () => Promise<R>): Promise<R> };
}

/** One handler for every job name of a queue: the compiler and the start-up check both ask for each. */
export type JobHandlers<P extends JobPayloads> = { [N in keyof P]: JobHandler<JobOf<P, N>> };

/** Whether this is the job's last attempt (Bull counts attempts made before this one). */
export function isLastAttempt(job: Job, defaultAttempts = 1): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? defaultAttempts);
}

/**
 * The one way a queue's jobs are run: validate the payload (invalid data is final: discarded, not
 * retried), run, and on the last attempt give up through the handler's hook. Subclasses list a handler
 * per job name; a job name without one stops the process at start.
 */
export abstract class QueueProcessor<P extends JobPayloads> implements OnApplicationBootstrap {
  protected constructor(
    private readonly queue: Queue,
    private readonly contract: QueueContract<P>,
  ) {}

  protected abstract handlers(): JobHandlers<P>;

  onApplicationBootstrap(): Promise<void> | void {
    registerHandlers(this.queue, this.contract, this.handlers());
  }

  /**
   * Settles, through its handler's `giveUp`, a job Bull failed in its stalled check (`onStalledOut`), which
   * Bull fails without our handler; false when the job is gone, its data fails the contract, or it has no `giveUp`.
   */
  protected async giveUpStalledOut(jobId: string, error: Error): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job || !(job.name in this.contract.payloads)) return false;
    const name = job.name as keyof P & string;
    return giveUp(job, this.contract.payloads[name], this.handlers()[name], error);
  }
}

export function registerHandlers<P extends JobPayloads>(
  queue: Queue,
  contract: QueueContract<P>,
  handlers: JobHandlers<P>,
): void {
  const missing = Object.keys(contract.payloads).filter((name) => !handlers[name]);
  if (missing.length) throw new Error(`Queue ${contract.name} has no handler for job ${missing.join(', ')}`);
  for (const name of Object.keys(contract.payloads) as Array<keyof P & string>) {
    const handler = handlers[name];
    void queue.process(name, handler.concurrency, (job: Job) => runJob(job, contract.payloads[name], handler));
  }
}

async function runJob<T extends object>(job: Job, payloadClass: new () => T, handler: JobHandler<T>): Promise<unknown> {
  const work = async () => {
    const { value: data, problems } = jobDataProblems(payloadClass, job.data);
    if (problems.length) return refuse(job, payloadClass.name, problems, handler);
    try {
      return await handler.run(data, job);
    } catch (error) {
      if (!handler.giveUp || (!isLastAttempt(job) && !handler.isFinal?.(error))) throw error;
      return handler.giveUp(data, error, job);
    }
  };
  const wrapped = () => (handler.around ? handler.around(work, job) : work());
  return handler.fairShare ? handler.fairShare.run(job, wrapped) : wrapped();
}

async function giveUp<T extends object>(
  job: Job,
  payloadClass: new () => T,
  handler: JobHandler<T>,
  error: Error,
): Promise<boolean> {
  const { value: data, problems } = jobDataProblems(payloadClass, job.data);
  if (!handler.giveUp || problems.length) return false;
  await handler.giveUp(data, error, job);
  return true;
}

async function refuse<T>(job: Job, payload: string, problems: string[], handler: JobHandler<T>): Promise<unknown> {
  if (handler.refuse) return handler.refuse(problems, job);
  await job.discard();
  throw new InvalidJobDataError(job.queue.name, `Invalid ${payload}: ${problems.join(' | ')}`);
}
