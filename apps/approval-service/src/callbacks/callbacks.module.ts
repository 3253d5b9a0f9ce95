import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApprovalStoreModule } from '../approvals/approval-store.module';
import { CallbackRejectionsRepository } from './callback-rejections.repository';
import { CallbackRateLimitStorage } from './callback-rate-limit.storage';
import { CallbacksFirstGate } from './callbacks-first.gate';
import { CallbacksController } from './callbacks.controller';
import { CallbacksService } from './callbacks.service';

@Module({
  imports: [
    ApprovalStoreModule,
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        throttlers: [{ ttl: 60_000, limit: config.get<number>('CALLBACK_RATE_LIMIT_PER_MINUTE') ?? 1200 }],
        storage: new CallbackRateLimitStorage(config),
      }),
    }),
  ],
  controllers: [CallbacksController],
  providers: [CallbacksService, CallbacksFirstGate, CallbackRejectionsRepository],
  exports: [CallbacksFirstGate],
})
export class CallbacksModule {}
