import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { SharedQueue } from '@app/contracts/payloads';
import { OutageModule } from '@app/database';
import { ApprovalMetricsModule } from '../metrics/approval-metrics.module';
import { DecisionOutboxRepository } from './decision-outbox.repository';
import { DecisionRelay } from './decision-relay';

/** Decision events: the outbox they are written to with their decision, and the relay that publishes them. */
@Module({
  imports: [OutageModule, ApprovalMetricsModule, BullModule.registerQueue({ name: SharedQueue.ApprovalDecisions })],
  providers: [DecisionOutboxRepository, DecisionRelay],
  exports: [DecisionOutboxRepository, DecisionRelay],
})
export class OutboxModule {}
