import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { ApprovalsRepository } from '../approval-store/approvals.repository';
import { PeriodicSweep } from '../common/periodic-sweep';
import { LOST_ROUND_AFTER_MS, REMINDER_SWEEP_BATCH } from './reminder.jobs';
import { ReminderProducer } from './reminder.producer';

/**
 * In worker processes: adds again every reminder round whose job Redis lost (a restart without its data), once
 * it is LOST_ROUND_AFTER_MS overdue. Every worker sweeps: a round's job id makes another add a no-op while the
 * job waits or runs, and a round that ran meanwhile and runs again claims the reminder it claimed before, whose
 * attempt is queued or logged already, so no round is sent twice.
 */
@Injectable()
export class ReminderSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ReminderSweeper.name);
  private readonly sweep = new PeriodicSweep('reminder round sweep', this.logger, () => this.addLostRounds());

  constructor(
    private readonly repository: ApprovalsRepository,
    private readonly rounds: ReminderProducer,
    private readonly env: ApprovalEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.sweep.start(this.env.REMINDER_SWEEP_MS);
  }

  onModuleDestroy(): Promise<void> {
    return this.sweep.stop();
  }

  private async addLostRounds(): Promise<void> {
    const overdue = await this.repository.overdueReminderRounds(LOST_ROUND_AFTER_MS, REMINDER_SWEEP_BATCH);
    const added = await Promise.allSettled(overdue.map((r) => this.rounds.addAgain(r.approvalId, r.round)));
    const failed = added.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    if (failed.length)
      this.logger.warn(
        { rounds: failed.length, error: String(failed[0].reason) },
        'overdue reminder rounds not added again; the next sweep tries again',
      );
    if (overdue.length > failed.length)
      this.logger.log({ rounds: overdue.length - failed.length }, 'overdue reminder rounds added again');
  }
}
