import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApprovalStoreModule } from '../approval-store/approval-store.module';
import { OutboxModule } from '../outbox/outbox.module';
import { CallbackRejectionsRepository } from './callback-rejections.repository';
import { CallbackRateLimitStorage } from './callback-rate-limit.storage';
import { CallbacksFirstGate } from './callbacks-first.gate';
import { CallbacksController } from './callbacks.controller';
import { CallbacksService } from './callbacks.service';
import { RecentCallbackCredentials } from './recent-callback-credentials';

@Module({
  imports: [
    ApprovalStoreModule,
    OutboxModule,
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        throttlers: [{ ttl: 60_000, limit: config.get<number>('CALLBACK_RATE_LIMIT_PER_MINUTE') ?? 1200 }],
        storage: new CallbackRateLimitStorage(config),
      }),
    }),
  ],
  controllers: [CallbacksController],
  providers: [
    CallbacksService,
    CallbacksFirstGate,
    CallbackRejectionsRepository,
    { provide: RecentCallbackCredentials, useFactory: () => new RecentCallbackCredentials() },
  ],
  // Intake remembers the credentials of the approvals it creates; callbacks check against them.
  exports: [CallbacksFirstGate, RecentCallbackCredentials],
})
export class CallbacksModule {}
