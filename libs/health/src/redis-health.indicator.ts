import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Cluster, Redis } from 'ioredis';
import { BaseEnv } from '@app/config';
import { connectRedis, redisConnectionOf } from '@app/redis';

@Injectable()
export class RedisHealthIndicator implements OnModuleDestroy {
  private readonly redis: Redis | Cluster;

  constructor(
    env: BaseEnv,
    private readonly indicators: HealthIndicatorService,
  ) {
    this.redis = connectRedis(redisConnectionOf(env), {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      enableOfflineQueue: true,
    });
  }

  async isHealthy(key = 'redis') {
    const indicator = this.indicators.check(key);
    try {
      if (this.redis instanceof Cluster) {
        // Any node answers a ping; only a cluster with every slot served takes commands for all keys.
        const info = String(await withTimeout(this.redis.call('CLUSTER', 'INFO'), 2000));
        return /^cluster_state:ok\b/m.test(info) ? indicator.up() : indicator.down({ message: 'cluster state not ok' });
      }
      const pong = await withTimeout(this.redis.ping(), 2000);
      return pong === 'PONG' ? indicator.up() : indicator.down({ message: 'unexpected reply' });
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref()),
  ]);
}
