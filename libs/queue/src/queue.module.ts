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
          useFactory: (config: ConfigService) => ({
            url: config.getOrThrow<string>('REDIS_URL'),
            prefix: config.getOrThrow<string>('QUEUE_PREFIX'),
            redis: { maxRetriesPerRequest: null, enableReadyCheck: false },
          }),
        }),
      ],
      exports: [BullModule],
    };
  }
}
