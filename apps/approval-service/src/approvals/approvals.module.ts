import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProcessRole, runsWorkers } from '@app/config';
import { SharedQueue } from '@app/contracts/payloads';
import { ApprovalLogEntity } from '../approval-store/approval-log.entity';
import { ApprovalStoreModule } from '../approval-store/approval-store.module';
import { ApprovalEntity } from '../approval-store/approval.entity';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { OutageModule } from '@app/database';
import { DecisionPagesModule } from '../decision-pages/decision-pages.module';
import { DecisionTimeoutsModule } from '../decision-timeouts/decision-timeouts.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { OutboxModule } from '../outbox/outbox.module';
import { RemindersModule } from '../reminders/reminders.module';
import { ApprovalListRepository } from './approval-list.repository';
import { ApprovalRequestsProcessor } from './approval-requests.processor';
import { ApprovalsController } from './approvals.controller';
import { ApprovalsService } from './approvals.service';
import { StalledOutRequests } from './stalled-out-requests';
import { WebhookTestSlots } from './webhook-test-slots';

@Module({})
export class ApprovalsModule {
  static forRole(role: ProcessRole): DynamicModule {
    const delivery = DeliveryModule.forRole(role);
    return {
      module: ApprovalsModule,
      imports: [
        TypeOrmModule.forFeature([ApprovalEntity, ApprovalLogEntity]),
        ApprovalStoreModule,
        OutboxModule,
        OutageModule,
        CallbacksModule,
        delivery,
        RemindersModule.forRole(role, delivery),
        DecisionTimeoutsModule.forRole(role),
        DecisionPagesModule,
        BullModule.registerQueue({ name: SharedQueue.ApprovalRequests }),
      ],
      controllers: [ApprovalsController],
      providers: [
        ApprovalsService,
        ApprovalListRepository,
        WebhookTestSlots,
        ...(runsWorkers(role) ? [ApprovalRequestsProcessor, StalledOutRequests] : []),
      ],
    };
  }
}
