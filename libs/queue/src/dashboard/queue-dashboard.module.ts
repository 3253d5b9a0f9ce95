import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardInstance, BullBoardModule, InjectBullBoard } from '@bull-board/nestjs';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import Bull, { Queue } from 'bull';
import { SharedQueue } from '@app/contracts/payloads';
import { QueueDashboardAuth } from './queue-dashboard.auth';
import { redactSecrets } from './redact-secrets';
import { QUEUE_DASHBOARD_ROUTE } from './queue-dashboard.route';

/**
 * What the board says under a queue whose consumer is not this service: with no agent runtime running
 * (as under `npm start`), its jobs wait with "No workers", as they should.
 */
const QUEUE_DESCRIPTIONS: Record<string, string> = {
  [SharedQueue.ConnectorEvents]:
    'Sync-run events for the agent runtime, which consumes them; without a runtime running they wait (no workers here).',
  [SharedQueue.ApprovalDecisions]:
    'Approval decisions for the agent runtime, which consumes them; without a runtime running they wait (no workers here).',
  [SharedQueue.ApprovalRequests]: 'Approval requests from the agent runtime; the approval-service consumes them.',
};

/** Puts every Bull queue of the app on the board, found like the stalled-job log finds them. */
@Injectable()
class DashboardQueues implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    @InjectBullBoard() private readonly board: BullBoardInstance,
  ) {}

  onModuleInit(): void {
    const byName = new Map<string, Queue>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as unknown;
      if (instance instanceof Bull && !byName.has(instance.name)) byName.set(instance.name, instance);
    }
    for (const queue of [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)))
      this.board.addQueue(withoutSecrets(new BullAdapter(queue, { description: QUEUE_DESCRIPTIONS[queue.name] })));
  }
}

/** Jobs as the board shows them: a request job in flight still holds its webhook's auth values. */
function withoutSecrets(adapter: BullAdapter): BullAdapter {
  adapter.setFormatter('data', (data) => redactSecrets(data));
  adapter.setFormatter('returnValue', (value) => redactSecrets(value));
  return adapter;
}

/** Bull Board at /admin/queues, behind the platform token with role `admin` (QueueDashboardAuth). */
@Module({
  imports: [
    DiscoveryModule,
    BullBoardModule.forRoot({ route: QUEUE_DASHBOARD_ROUTE, adapter: ExpressAdapter, middleware: QueueDashboardAuth }),
  ],
  providers: [DashboardQueues],
})
export class QueueDashboardModule {}
