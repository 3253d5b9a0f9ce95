import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardInstance, BullBoardModule, InjectBullBoard } from '@bull-board/nestjs';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import Bull, { Queue } from 'bull';
import { QueueDashboardAuth } from './queue-dashboard.auth';
import { redactSecrets } from './redact-secrets';
import { QUEUE_DASHBOARD_ROUTE } from './queue-dashboard.route';

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
      this.board.addQueue(withoutSecrets(new BullAdapter(queue)));
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
