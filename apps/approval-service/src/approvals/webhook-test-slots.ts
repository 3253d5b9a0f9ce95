import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { RetryLaterException } from '@app/errors';
import { connectRedis, keyPrefixOf, redisConnectionOf } from '@app/redis';
import { ApprovalEnv } from '../approval-env';

/** Test deliveries one tenant may have running at once, across every process (CONTRACT.md). */
export const WEBHOOK_TESTS_PER_TENANT = 2;
export const TOO_MANY_TESTS = 'TOO_MANY_TESTS';

/**
 * Takes a slot if fewer than `limit` unexpired ones are held: a sorted set per tenant, each slot scored
 * by when it lapses on Redis's clock, so a slot whose process died frees itself.
 */
const TAKE = `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], nowMs + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** The per-tenant slots of `POST /v1/approvals/test-webhook`, kept in the service's Redis. */
@Injectable()
export class WebhookTestSlots implements OnModuleDestroy {
  private readonly redis: Redis | Cluster;
  private readonly prefix: string;
  /** A slot lapses this long after it was taken: the test's cap and a margin for the answer. */
  private readonly holdMs: number;

  constructor(env: ApprovalEnv) {
    const connection = redisConnectionOf(env);
    this.prefix = `${keyPrefixOf(connection, env.QUEUE_PREFIX)}:webhook-tests:`;
    this.holdMs = (env.WEBHOOK_TEST_MAX_SECONDS + 5) * 1000;
    this.redis = connectRedis(connection, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.redis.on('error', () => undefined);
  }

  /** Runs `test` in one of the tenant's slots; 429 TOO_MANY_TESTS when they are all taken. */
  async run<T>(tenantId: string, test: () => Promise<T>): Promise<T> {
    const key = `${this.prefix}${tenantId}`;
    const slot = randomUUID();
    const taken = await this.redis.eval(TAKE, 1, key, slot, this.holdMs, WEBHOOK_TESTS_PER_TENANT);
    if (taken !== 1)
      throw new RetryLaterException(
        429,
        TOO_MANY_TESTS,
        `At most ${WEBHOOK_TESTS_PER_TENANT} webhook tests of a tenant run at once; wait for one to finish`,
        Math.ceil(this.holdMs / 1000) - 5,
      );
    try {
      return await test();
    } finally {
      await this.redis.zrem(key, slot).catch(() => undefined);
    }
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }
}
