import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { ProcessRole, runsWorkers } from '@app/config';
import { ApprovalStoreModule } from '../approval-store/approval-store.module';
import { OutageModule } from '@app/database';
import { OutboxModule } from '../outbox/outbox.module';
import { DECISION_TIMEOUT_QUEUE } from './decision-timeout.jobs';
import { DecisionTimeoutProcessor } from './decision-timeout.processor';
import { DecisionTimeoutProducer } from './decision-timeout.producer';
import { DecisionTimeoutService } from './decision-timeout.service';
import { DecisionTimeoutSweeper } from './decision-timeout.sweeper';

/** Decision deadlines: a delayed job per approval, and in workers a sweep for jobs that were lost. */
@Module({})
export class DecisionTimeoutsModule {
  static forRole(role: ProcessRole): DynamicModule {
    return {
      module: DecisionTimeoutsModule,
      imports: [
        ApprovalStoreModule,
        OutboxModule,
        OutageModule,
        BullModule.registerQueue({ name: DECISION_TIMEOUT_QUEUE }),
      ],
      providers: [
        DecisionTimeoutProducer,
        DecisionTimeoutService,
        ...(runsWorkers(role) ? [DecisionTimeoutProcessor, DecisionTimeoutSweeper] : []),
      ],
      exports: [DecisionTimeoutProducer],
    };
  }
}
