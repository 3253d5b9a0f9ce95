import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutageModule } from '@app/database';
import { ApprovalLogEntity } from './approval-log.entity';
import { ApprovalEntity } from './approval.entity';
import { ApprovalsRepository } from './approvals.repository';
import { DecisionsRepository } from './decisions.repository';
import { ExtraAttemptsRepository } from './extra-attempts.repository';
import { BatchedApprovals } from './batched-approvals';

/** Approvals and their log, shared by intake, delivery, callbacks and deadlines; a decision's outbox row is written with it. */
@Module({
  imports: [TypeOrmModule.forFeature([ApprovalEntity, ApprovalLogEntity]), OutageModule],
  providers: [ApprovalsRepository, DecisionsRepository, ExtraAttemptsRepository, BatchedApprovals],
  exports: [ApprovalsRepository, ExtraAttemptsRepository, BatchedApprovals],
})
export class ApprovalStoreModule {}
