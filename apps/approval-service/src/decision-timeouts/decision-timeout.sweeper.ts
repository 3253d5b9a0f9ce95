import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { PeriodicSweep } from '../common/periodic-sweep';
import { DecisionTimeoutService } from './decision-timeout.service';

/** In worker processes: catches every due approval whose deadline job was lost (Redis flushed, never added). */
@Injectable()
export class DecisionTimeoutSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly sweep: PeriodicSweep;

  constructor(
    timeouts: DecisionTimeoutService,
    private readonly env: ApprovalEnv,
  ) {
    const logger = new Logger(DecisionTimeoutSweeper.name);
    this.sweep = new PeriodicSweep('decision deadline sweep', logger, () => timeouts.timeOutDue());
  }

  onApplicationBootstrap(): void {
    this.sweep.start(this.env.DECISION_TIMEOUT_SWEEP_MS, { now: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.sweep.stop();
  }
}
