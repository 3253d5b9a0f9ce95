import { Module } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
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
      inject: [ApprovalEnv],
      useFactory: (env: ApprovalEnv) => ({
        throttlers: [{ ttl: 60_000, limit: env.CALLBACK_RATE_LIMIT_PER_MINUTE }],
        storage: new CallbackRateLimitStorage(env),
      }),
    }),
  ],
  controllers: [CallbacksController],
  providers: [CallbacksService, CallbacksFirstGate, CallbackRejectionsRepository],
  exports: [CallbacksFirstGate],
})
export class CallbacksModule {}
