import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from '@app/auth';
import { ProcessRole, validatedConfig } from '@app/config';
import { CryptoModule } from '@app/crypto';
import { DatabaseModule, PoolTurnsModule } from '@app/database';
import { UndeclaredQueryGuard } from '@app/errors';
import { HealthModule } from '@app/health';
import { LoggingModule } from '@app/logging';
import { MetricsModule } from '@app/metrics';
import { QueueDashboardModule, QueueModule } from '@app/queue';
import { ApprovalEnv } from './approval-env';
import { ApprovalsModule } from './approvals/approvals.module';
import { CallbacksModule } from './callbacks/callbacks.module';
import { OutboxPollerModule } from './outbox/outbox-poller.module';
import { approvalDatabase } from './approval-database';
import { withoutPageToken } from './decision-pages/page-token-redaction';

export interface AppOptions {
  role: ProcessRole;
  /** Configuration that wins over process.env (tests). */
  env?: Record<string, unknown>;
  /** Where log lines go instead of stdout (tests that read them). */
  logDestination?: NodeJS.WritableStream;
}

@Module({})
export class AppModule {
  static forRoot({ role, env, logDestination }: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        validatedConfig(ApprovalEnv, env),
        LoggingModule.forRoot('approval-service', logDestination, { loggedPath: withoutPageToken }),
        AuthModule,
        CryptoModule,
        DatabaseModule.forService(approvalDatabase),
        PoolTurnsModule,
        QueueModule.forRoot(),
        HealthModule.withStores(),
        MetricsModule.forRole(role),
        QueueDashboardModule,
        ApprovalsModule.forRole(role),
        CallbacksModule,
        OutboxPollerModule.forRole(role),
      ],
      providers: [{ provide: APP_GUARD, useClass: UndeclaredQueryGuard }],
    };
  }
}
