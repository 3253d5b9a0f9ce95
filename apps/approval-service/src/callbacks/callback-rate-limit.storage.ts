import { Logger } from '@nestjs/common';
import type { ApprovalEnv } from '../approval-env';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { Redis } from 'ioredis';
import { connectRedis, isCluster, keyPrefixOf, redisConnectionOf } from '@app/redis';
import { LastSeenCounts } from './last-seen-counts';

const REDIS_DEADLINE_MS = 1000;
const WARN_EVERY_MS = 10_000;
const HIT_COMMAND = 'callbackRateHit';

type HitReply = [totalHits: number, timeToExpire: number, isBlocked: number, timeToBlockExpire: number];

/**
 * Callback counts per client address in the service's Redis, under QUEUE_PREFIX, so every process
 * behind a load balancer shares one limit per client.
 */
export class CallbackRateLimitStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger(CallbackRateLimitStorage.name);
  private lastWarnedAt = 0;
  private readonly lastSeen = new LastSeenCounts();
  private laterHits: Array<() => void> = [];

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
        // The background hits of one turn of the event loop go to Redis in one write (see countLater).
        enableAutoPipelining: true,
      }) as Redis,
    );
    this.disconnectRequired = true;
    // The library sends its script text with every EVAL; a defined command sends its SHA (EVALSHA).
    this.redis.defineCommand(HIT_COMMAND, { numberOfKeys: 2, lua: this.scriptSrc });
    // Connection errors are reported by increment(), where they cost a count; ioredis would print each one.
    this.redis.on('error', () => undefined);
  }

  /** Hits far below the limit are answered from the count Redis last gave and counted there in the background. */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    name: string,
  ): Promise<ThrottlerStorageRecord> {
    const countKey = `${name}:${key}`;
    const answered = this.lastSeen.answer(countKey, limit);
    if (!answered) return this.count(countKey, [key, ttl, limit, blockDuration, name], false);
    this.countLater(() => void this.count(countKey, [key, ttl, limit, blockDuration, name], true));
    return answered;
  }

  /**
   * Background hits wait for the end of this turn of the event loop, so the hits of the callbacks that
   * arrived in it share one write to Redis: a write of its own cost each callback a system call.
   */
  private countLater(hit: () => void): void {
    this.laterHits.push(hit);
    if (this.laterHits.length > 1) return;
    setImmediate(() => {
      const hits = this.laterHits;
      this.laterHits = [];
      hits.forEach((send) => send());
    });
  }

  /**
   * Fails open: a callback needs only PostgreSQL, and its 256-bit token cannot be guessed, so an
   * unreachable Redis should not turn every decision into an error.
   */
  private async count(
    countKey: string,
    hit: [key: string, ttl: number, limit: number, blockDuration: number, name: string],
    answered: boolean,
  ): Promise<ThrottlerStorageRecord> {
    try {
      const record = await this.hit(...hit);
      this.lastSeen.remember(countKey, record, answered);
      return record;
    } catch (error) {
      if (answered) this.lastSeen.forget(countKey);
      if (Date.now() - this.lastWarnedAt >= WARN_EVERY_MS) {
        this.lastWarnedAt = Date.now();
        this.logger.warn({ error: (error as Error).message }, 'callback rate limit not counted: Redis did not answer');
      }
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  /** The library's script and keys, run by its SHA; answers as the library's increment does. */
  private async hit(key: string, ttl: number, limit: number, blockDuration: number, name: string) {
    const keys = [`{${key}:${name}}:hits`, `{${key}:${name}}:blocked`];
    const run = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<HitReply>>)[HIT_COMMAND];
    const [totalHits, timeToExpire, isBlocked, timeToBlockExpire] = await run.call(
      this.redis,
      ...keys,
      name,
      ttl,
      limit,
      blockDuration,
    );
    return {
      totalHits,
      timeToExpire: Math.ceil(timeToExpire / 1000),
      isBlocked: isBlocked === 1,
      timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
    };
  }
}
