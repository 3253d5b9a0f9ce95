import { getQueueToken } from '@nestjs/bull';
import { Inject, Provider } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { BaseEnv } from '@app/config';
import { connectRedis, keyPrefixOf, redisConnectionOf } from '@app/redis';
import { JobOf, JobPayloads, QueueContract } from '../queue-contract';
import { FairShare } from './fair-share';
import { FairJob, FairShareOptions } from './fair-share.types';

/** The injection token of a queue's fair share (tests get it from the app with it). */
export const fairShareToken = (queue: string): string => `FairShare:${queue}`;

/** Injects the fair share of a queue, provided by `fairShareProvider(queue, …)` in the same module. */
export const InjectFairShare = (queue: string): ParameterDecorator => Inject(fairShareToken(queue));

/**
 * The fair share of a queue registered in the same module (BullModule.registerQueue), on the app's Redis
 * and QUEUE_PREFIX, with a connection of its own that waits for Redis rather than failing: an outage pauses.
 */
export function fairShareProvider(queue: string, options: FairShareOptions): Provider {
  return {
    provide: fairShareToken(queue),
    inject: [BaseEnv, getQueueToken(queue)],
    useFactory: (env: BaseEnv, bull: Queue) => {
      const connection = redisConnectionOf(env);
      const redis = connectRedis(connection, { maxRetriesPerRequest: null, enableAutoPipelining: true });
      return new FairShare(bull, redis, keyPrefixOf(connection, env.QUEUE_PREFIX), options);
    },
  };
}

/** A job of a queue's contract as the fair share takes it, its payload typed by its name. */
export function fairJob<P extends JobPayloads, N extends keyof P & string>(
  _contract: QueueContract<P>,
  name: N,
  id: string,
  data: JobOf<P, N>,
  opts?: JobOptions,
): FairJob {
  return { id, name, data, opts };
}
