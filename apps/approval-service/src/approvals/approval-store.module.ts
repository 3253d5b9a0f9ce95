import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SharedQueue } from '@app/contracts';
import { DecisionOutboxEntity } from '../outbox/decision-outbox.entity';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalLogEntity } from './approval-log.entity';
import { ApprovalEntity } from './approval.entity';
import { ApprovalsRepository } from './approvals.repository';

/** Persistence of approvals, their log and decision outbox, shared by intake, delivery and callbacks. */
@Module({
  imports: [TypeOrmModule.forFeature([ApprovalEntity, ApprovalLogEntity, DecisionOutboxEntity]), BullModule.registerQueue({ name: SharedQueue.ApprovalDecisions })],
  providers: [ApprovalsRepository, DecisionRelay],
  exports: [ApprovalsRepository, DecisionRelay],
})
export class ApprovalStoreModule {}
