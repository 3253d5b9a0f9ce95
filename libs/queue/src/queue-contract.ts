import type { Job, JobOptions, Queue } from 'bull';

/** The name Bull gives a job added without one (the agent runtime adds its requests so). */
export const DEFAULT_JOB_NAME = '__default__';

/** A queue's jobs: each job name with the class of its payload, validated before a handler sees it. */
export type JobPayloads = Record<string, new () => object>;

/** The payload type of one job of a queue. */
export type JobOf<P extends JobPayloads, N extends keyof P> = InstanceType<P[N]>;

/**
 * A queue as producers and processors agree on it. WARNING: the name and the job names are Redis keys
 * that running workers share; renaming one needs a migration plan (drain the queue first).
 */
export interface QueueContract<P extends JobPayloads> {
  readonly name: string;
  readonly payloads: P;
}

export function queueContract<P extends JobPayloads>(name: string, payloads: P): QueueContract<P> {
  return { name, payloads };
}

declare const payloads: unique symbol;

/** A Bull queue typed by its contract's payloads: what a producer declares the queue it injects as. */
export type ContractQueue<P extends JobPayloads> = Queue & { readonly [payloads]?: P };

/** Adds one job of a queue, its payload typed by its name. */
export function addJob<P extends JobPayloads, N extends keyof P & string>(
  queue: ContractQueue<P>,
  name: N,
  data: JobOf<P, N>,
  opts?: JobOptions,
): Promise<Job> {
  return queue.add(name, data, opts);
}
