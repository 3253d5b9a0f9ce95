import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { ProcessRole, runsWorkers } from '@app/config';
import { SharedQueue } from '@app/contracts';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { DecisionTimeoutsModule } from '../decision-timeouts/decision-timeouts.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { ApprovalRequestsProcessor } from './approval-requests.processor';
import { ApprovalStoreModule } from './approval-store.module';
import { ApprovalsController } from './approvals.controller';
import { ApprovalsService } from './approvals.service';

@Module({})
export class ApprovalsModule {
  static forRole(role: ProcessRole): DynamicModule {
    return {
      module: ApprovalsModule,
      imports: [
        ApprovalStoreModule,
        CallbacksModule,
        DeliveryModule.forRole(role),
        DecisionTimeoutsModule.forRole(role),
        BullModule.registerQueue({ name: SharedQueue.ApprovalRequests }),
      ],
      controllers: [ApprovalsController],
      providers: [ApprovalsService, ...(runsWorkers(role) ? [ApprovalRequestsProcessor] : [])],
    };
  }
}
