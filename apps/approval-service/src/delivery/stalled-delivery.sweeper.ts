import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { ApprovalsRepository } from '../approval-store/approvals.repository';
import { PeriodicSweep } from '../common/periodic-sweep';
import { DeliveryProducer } from './delivery.producer';

const PAGE = 200;

/**
 * In worker processes: sends on every Pending approval that nothing will send any more. Its queued attempt
 * may be gone with Redis's data (a restart without persistence), or was never written (Redis refused it,
 * the process stopped first). An approval counts as stalled once nothing was sent or logged for its
 * webhook timeout and DELIVERY_STRANDED_AFTER_MS, and no next attempt waits for it in the fair share: a live
 * worker's attempt has ended by then, unless it waited long for its tenant's turn and Redis then lost its
 * job; that one may be sent twice, with the same webhook-id, as after a crash. Every worker sweeps: what
 * one adds, another's add finds there.
 */
@Injectable()
export class StalledDeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly sweep = new PeriodicSweep('stalled delivery sweep', new Logger(StalledDeliverySweeper.name), () =>
    this.resumeStalled(),
  );
  private stopped = false;

  constructor(
    private readonly repository: ApprovalsRepository,
    private readonly producer: DeliveryProducer,
    private readonly env: ApprovalEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.sweep.start(this.env.DELIVERY_SWEEP_MS);
  }

  onModuleDestroy(): Promise<void> {
    this.stopped = true;
    return this.sweep.stop();
  }

  private async resumeStalled(): Promise<void> {
    let afterId: string | null = null;
    while (!this.stopped) {
      const stalled = await this.repository.stalledPending(this.env.DELIVERY_STRANDED_AFTER_MS, afterId, PAGE);
      if (stalled.length) await this.producer.resume(stalled);
      if (stalled.length < PAGE) return;
      afterId = stalled[stalled.length - 1].approvalId;
    }
  }
}
