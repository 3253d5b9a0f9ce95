import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/**
 * Bull Board at /admin/queues with every Bull queue of the app (found like the stalled-job log finds them),
 * behind QueueDashboardAuth. Board and sign-in are mounted at that prefix on the app's HTTP adapter itself,
 * Express or Fastify (through its middleware layer), where Nest's middleware routes would take the path
 * alone under Fastify.
 */
@Injectable()
class QueueDashboard implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: QueueDashboardAuth,
  ) {}

  onModuleInit(): void {
    const board = new ExpressAdapter();
    board.setBasePath(QUEUE_DASHBOARD_ROUTE);
    createBullBoard({ queues: this.queues().map(onBoard), serverAdapter: board });
    const http = this.adapterHost.httpAdapter;
    http.use(QUEUE_DASHBOARD_ROUTE, (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
      this.auth.use(req, res, next).catch(next);
    });
    http.use(QUEUE_DASHBOARD_ROUTE, board.getRouter());
  }

  private queues(): Queue[] {
    const byName = new Map<string, Queue>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as unknown;
      if (instance instanceof Bull && !byName.has(instance.name)) byName.set(instance.name, instance);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}

function onBoard(queue: Queue): BullAdapter {
  return withoutSecrets(new BullAdapter(queue, { description: QUEUE_DESCRIPTIONS[queue.name] }));
}

/** Jobs as the board shows them: a request job in flight still holds its webhook's auth values. */
function withoutSecrets(adapter: BullAdapter): BullAdapter {
  adapter.setFormatter('data', (data) => redactSecrets(data));
  adapter.setFormatter('returnValue', (value) => redactSecrets(value));
  return adapter;
}

/** Bull Board at /admin/queues, behind the platform token with role `admin` (QueueDashboardAuth). */
@Module({
  imports: [DiscoveryModule],
  providers: [QueueDashboardAuth, QueueDashboard],
})
export class QueueDashboardModule {}
