import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BaseEnv } from '@app/config';
import { AppQueueConnection, QueueConnectionModule } from './queue-connection.provider';
import { StalledJobLog } from './stalled-job-log';

/**
 * A job whose worker died goes back to waiting at the first stalled check after its lock expired, so
 * it is taken over within lockDuration + stalledInterval of the crash (8 s + 2 s by default, instead of
 * 30 s + 30 s). A live worker renews its locks every lockDuration / 2 while the handler's promise is
 * pending; only an event loop blocked for longer than that can lose a lock (text extraction, the one
 * long CPU step, runs in worker threads). A job taken over is run again, not failed: it fails only
 * after stalling more than MAX_STALLED_COUNT times (a job that kills every worker that runs it).
 */
const MAX_STALLED_COUNT = 2;

/** Bull on REDIS_URL (or REDIS_CLUSTER_NODES' cluster) with QUEUE_PREFIX, shared by every queue of a service. */
@Module({})
export class QueueModule {
  static forRoot(): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        DiscoveryModule,
        QueueConnectionModule,
        BullModule.forRootAsync({
          imports: [QueueConnectionModule],
          inject: [BaseEnv, AppQueueConnection],
          useFactory: (env: BaseEnv, connection: AppQueueConnection) => ({
            ...connection.options(env.QUEUE_PREFIX, { maxRetriesPerRequest: null, enableReadyCheck: false }),
            settings: {
              lockDuration: env.QUEUE_LOCK_DURATION_MS,
              stalledInterval: env.QUEUE_STALLED_INTERVAL_MS,
              maxStalledCount: MAX_STALLED_COUNT,
            },
          }),
        }),
      ],
      providers: [StalledJobLog],
      exports: [BullModule],
    };
  }
}
