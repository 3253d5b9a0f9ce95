import { DynamicModule, Module } from '@nestjs/common';
import { validatedConfig } from '@app/config';
import { DatabaseModule } from '@app/database';
import { LoggingModule } from '@app/logging';
import { QueueModule } from '@app/queue';
import { approvalDatabase } from '../approval-database';
import { ApprovalEnv } from '../approval-env';
import { DecisionReplay } from './decision-replay';
import { OutboxModule } from './outbox.module';

/**
 * What `approvals:replay-decisions` runs in: the service's configuration, database and queues, and the
 * outbox, without HTTP or workers (a Nest application context of its own, beside the running service).
 */
@Module({})
export class DecisionReplayModule {
  static forRoot(env?: Record<string, unknown>, logDestination?: NodeJS.WritableStream): DynamicModule {
    return {
      module: DecisionReplayModule,
      imports: [
        validatedConfig(ApprovalEnv, env),
        LoggingModule.forRoot('approval-service', logDestination),
        DatabaseModule.forService(approvalDatabase),
        QueueModule.forRoot(),
        OutboxModule,
      ],
      providers: [DecisionReplay],
    };
  }
}
