import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SharedQueue } from '@app/contracts';
import { OutageRider } from '../database/outage-rider';
import { DecisionOutboxEntity } from '../outbox/decision-outbox.entity';
import { DecisionOutboxRepository } from '../outbox/decision-outbox.repository';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalListRepository } from './approval-list.repository';
import { ApprovalLogEntity } from './approval-log.entity';
import { ApprovalEntity } from './approval.entity';
import { ApprovalsRepository } from './approvals.repository';

/** Persistence of approvals, their log and decision outbox, shared by intake, delivery and callbacks. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ApprovalEntity, ApprovalLogEntity, DecisionOutboxEntity]),
    BullModule.registerQueue({ name: SharedQueue.ApprovalDecisions }),
  ],
  providers: [ApprovalsRepository, DecisionOutboxRepository, DecisionRelay, OutageRider, ApprovalListRepository],
  exports: [ApprovalsRepository, DecisionRelay, OutageRider, ApprovalListRepository],
})
export class ApprovalStoreModule {}
