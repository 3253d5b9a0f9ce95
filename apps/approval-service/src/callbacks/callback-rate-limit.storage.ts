import { Logger } from '@nestjs/common';
import type { ApprovalEnv } from '../approval-env';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { Redis } from 'ioredis';
import { connectRedis, isCluster, keyPrefixOf, redisConnectionOf } from '@app/redis';

const REDIS_DEADLINE_MS = 1000;
const WARN_EVERY_MS = 10_000;

/**
 * Callback counts per client address in the service's Redis, under QUEUE_PREFIX, so every process
 * behind a load balancer shares one limit per client.
 */
export class CallbackRateLimitStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger(CallbackRateLimitStorage.name);
  private lastWarnedAt = 0;

  constructor(env: Pick<ApprovalEnv, 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'QUEUE_PREFIX'>) {
    const connection = redisConnectionOf(env);
    // The base takes a Redis or a Cluster (its overloads name each, not the union).
    super(
      connectRedis(connection, {
        keyPrefix: `${keyPrefixOf(connection, env.QUEUE_PREFIX)}:callback-rate:`,
        connectTimeout: REDIS_DEADLINE_MS,
        commandTimeout: REDIS_DEADLINE_MS,
        maxRetriesPerRequest: 1,
        // A cluster not (yet) reachable fails a count at once instead of holding it until it is.
        enableOfflineQueue: !isCluster(connection),
      }) as Redis,
    );
    this.disconnectRequired = true;
    // Connection errors are reported by increment(), where they cost a count; ioredis would print each one.
    this.redis.on('error', () => undefined);
  }

  /**
   * Fails open: a callback needs only PostgreSQL, and its 256-bit token cannot be guessed, so an
   * unreachable Redis should not turn every decision into an error.
   */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    name: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      return await super.increment(key, ttl, limit, blockDuration, name);
    } catch (error) {
      if (Date.now() - this.lastWarnedAt >= WARN_EVERY_MS) {
        this.lastWarnedAt = Date.now();
        this.logger.warn({ error: (error as Error).message }, 'callback rate limit not counted: Redis did not answer');
      }
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }
}
