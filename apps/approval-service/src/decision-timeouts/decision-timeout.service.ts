import { Injectable, Logger } from '@nestjs/common';
import { ApprovalsRepository } from '../approval-store/approvals.repository';
import { NO_DECISION_IN_TIME } from '../approval-store/decisions.repository';
import { BatchedApprovals } from '../approval-store/batched-approvals';
import { OutageRider } from '@app/database';
import { DecisionRelay } from '../outbox/decision-relay';
import { SWEEP_BATCH } from './decision-timeout.jobs';

/**
 * Open approvals whose decision deadline passed become TimedOut, with their log entry and decision
 * event. The move is conditional, so a deadline job and a sweep (or two workers) time one out once.
 */
@Injectable()
export class DecisionTimeoutService {
  private readonly logger = new Logger(DecisionTimeoutService.name);

  constructor(
    private readonly repository: ApprovalsRepository,
    private readonly approvals: BatchedApprovals,
    private readonly relay: DecisionRelay,
    private readonly outage: OutageRider,
  ) {}

  /** Times out the due approvals (of `ids` when given); returns how many this call moved. */
  async timeOutDue(ids?: string[]): Promise<number> {
    const due = await this.outage.ride(() => this.repository.dueForTimeOut(SWEEP_BATCH, ids));
    // Submitted together, the moves share the batched decision statement instead of one round trip each.
    const decided = await Promise.all(
      due.map((id) =>
        this.outage.ride(() =>
          this.approvals.decide(id, 'TimedOut', {
            type: 'TimedOut',
            error: NO_DECISION_IN_TIME,
          }),
        ),
      ),
    );
    const moved = decided.filter((d) => d !== null);
    for (const { event } of moved) this.logger.log({ approvalId: event.approvalId }, 'approval timed out');
    await Promise.all(moved.map(({ event }) => this.relay.publish(event)));
    return moved.length;
  }
}
