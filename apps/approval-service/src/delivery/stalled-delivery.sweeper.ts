import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { ApprovalsRepository } from '../approval-store/approvals.repository';
import { DeliveryProducer } from './delivery.producer';
import { delayAfterFailedAttemptMs } from './retry-schedule';

const PAGE = 200;

/**
 * In worker processes: sends on every Pending approval that nothing will send any more. Its queued attempt
 * may be gone with Redis's data (a restart without persistence), or was never written (Redis refused it,
 * the process stopped first). An approval counts as stalled only once no live worker can be sending it or
 * waiting to: its webhook timeout, its retry's delay and DELIVERY_STRANDED_AFTER_MS after it was created or
 * last attempted. Its last logged attempt's job goes on from the log; an attempt still queued is not added twice.
 */
@Injectable()
export class StalledDeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(StalledDeliverySweeper.name);
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly repository: ApprovalsRepository,
    private readonly producer: DeliveryProducer,
    private readonly env: ApprovalEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.sweep(), this.env.DELIVERY_SWEEP_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  private sweep(): void {
    this.sweeping ??= this.resumeStalled()
      .catch((error: Error) =>
        this.logger.warn({ error: error.message }, 'stalled delivery sweep failed; the next one tries again'),
      )
      .finally(() => (this.sweeping = undefined));
  }

  private async resumeStalled(): Promise<void> {
    const quietMs = this.env.DELIVERY_STRANDED_AFTER_MS;
    let afterId: string | null = null;
    for (;;) {
      const page = await this.repository.pendingQuiet(afterId, PAGE);
      // Quiet past the timeout, DELIVERY_STRANDED_AFTER_MS and, after a failed attempt, its retry's delay.
      await this.producer.resume(page.filter((a) => a.quietForMs > quietMs + retryDelayAfter(a.attempt)));
      if (page.length < PAGE) return;
      afterId = page[page.length - 1].approvalId;
    }
  }
}

function retryDelayAfter(attempt: number): number {
  return attempt > 0 ? delayAfterFailedAttemptMs(attempt) : 0;
}
