import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { DecisionTimeoutService } from './decision-timeout.service';

/** In worker processes: catches every due approval whose deadline job was lost (Redis flushed, never added). */
@Injectable()
export class DecisionTimeoutSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DecisionTimeoutSweeper.name);
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly timeouts: DecisionTimeoutService,
    private readonly env: ApprovalEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.sweep(), this.env.DECISION_TIMEOUT_SWEEP_MS);
    this.timer.unref();
    this.sweep();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  private sweep(): void {
    this.sweeping ??= this.timeouts
      .timeOutDue()
      .then(() => undefined)
      .catch((error: Error) =>
        this.logger.warn({ error: error.message }, 'decision deadline sweep failed; the next one tries again'),
      )
      .finally(() => (this.sweeping = undefined));
  }
}
