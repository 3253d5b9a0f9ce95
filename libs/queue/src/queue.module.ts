import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';

/** Bull on REDIS_URL with QUEUE_PREFIX, shared by every queue of a service. */
@Module({})
export class QueueModule {
  static forRoot(): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        BullModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService) => {
            // A job whose worker died is taken again once its lock expires (renewed every half of it while alive).
            const lockDuration = config.get<number>('QUEUE_LOCK_DURATION_MS') ?? 30_000;
            return {
              url: config.getOrThrow<string>('REDIS_URL'),
              prefix: config.getOrThrow<string>('QUEUE_PREFIX'),
              redis: { maxRetriesPerRequest: null, enableReadyCheck: false },
              settings: { lockDuration, stalledInterval: lockDuration },
            };
          },
        }),
      ],
      exports: [BullModule],
    };
  }
}
