import { Module } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApprovalStoreModule } from '../approval-store/approval-store.module';
import { ApprovalMetricsModule } from '../metrics/approval-metrics.module';
import { OutboxModule } from '../outbox/outbox.module';
import { CallbackRejections } from './callback-rejections';
import { CallbackRejectionsRepository } from './callback-rejections.repository';
import { CallbackRateLimitStorage } from './callback-rate-limit.storage';
import { callbackThrottlers, hasCallbackIdShape } from './callback-throttlers';
import { CallbacksFirstGate } from './callbacks-first.gate';
import { CallbacksController } from './callbacks.controller';
import { CallbacksService } from './callbacks.service';
import { RecentCallbackCredentials } from './recent-callback-credentials';

@Module({
  imports: [
    ApprovalStoreModule,
    OutboxModule,
    ApprovalMetricsModule,
    ThrottlerModule.forRootAsync({
      inject: [ApprovalEnv],
      useFactory: (env: ApprovalEnv) => ({
        throttlers: callbackThrottlers(env),
        // A callbackId that is no UUID is answered 404 without a lookup: it spends nobody's share.
        skipIf: (context) => !hasCallbackIdShape(context),
        storage: new CallbackRateLimitStorage(env),
      }),
    }),
  ],
  controllers: [CallbacksController],
  providers: [
    CallbacksService,
    CallbacksFirstGate,
    CallbackRejectionsRepository,
    {
      provide: CallbackRejections,
      inject: [CallbackRejectionsRepository],
      useFactory: (repository: CallbackRejectionsRepository) => new CallbackRejections(repository),
    },
    { provide: RecentCallbackCredentials, useFactory: () => new RecentCallbackCredentials() },
  ],
  // Intake remembers the credentials of the approvals it creates; callbacks check against them. The
  // decision page records its decisions through CallbacksService.
  exports: [CallbacksFirstGate, RecentCallbackCredentials, CallbacksService],
})
export class CallbacksModule {}
