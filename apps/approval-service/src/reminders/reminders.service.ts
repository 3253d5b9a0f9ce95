import { Injectable } from '@nestjs/common';
import { OutageRider } from '@app/database';
import type { ReminderClaim } from '../approval-store/approval-rows';
import { OPEN_STATUSES } from '../approval-store/approval-state';
import { ExtraAttemptsRepository } from '../approval-store/extra-attempts.repository';
import { DeliveryProducer } from '../delivery/delivery.producer';
import { ReminderProducer } from './reminder.producer';

/**
 * Reminders: while an approval awaits its decision, its webhook goes again once per interval, counted from
 * the request (round n is due n intervals after it), with `reminder: n` in the body. A round claims its
 * reminder in the database (once, however often its job runs), hands the delivery to the delivery queue
 * (the same slots and shares as every attempt) and schedules the next round. A round that finds the
 * approval still Pending sends nothing (its first delivery is still being tried) and schedules the next;
 * a decision, a cancel, a failed delivery, the deadline or a 410 Gone answer to an extra attempt (the receiver
 * retired its endpoint; the approval still awaits its callback or decision page) ends the rounds.
 */
@Injectable()
export class RemindersService {
  constructor(
    private readonly extraAttempts: ExtraAttemptsRepository,
    private readonly delivery: DeliveryProducer,
    private readonly rounds: ReminderProducer,
    private readonly outage: OutageRider,
  ) {}

  async remind(approvalId: string, round: number): Promise<void> {
    const claim = await this.outage.ride(() => this.extraAttempts.claimReminder(approvalId, round));
    if (!claim?.remindAfterSeconds || !OPEN_STATUSES.includes(claim.status) || claim.remindersStopped) return;
    const { reminder, attempt } = claim;
    if (reminder !== null && attempt !== null)
      await this.outage.ride(() => this.delivery.redeliver(approvalId, attempt, claim, reminder));
    const next = nextRound(claim, round, Date.now());
    // Recorded before its job is added, so the sweep finds the round should Redis lose the job. With none (the
    // deadline comes first), the round after this one is recorded: due at or after the deadline, never swept.
    await this.outage.ride(() => this.extraAttempts.awaitReminderRound(approvalId, next?.round ?? round + 1));
    if (next) await this.outage.ride(() => this.rounds.schedule(approvalId, next.round, next.atMs));
  }
}

/**
 * The round after `round`, or a later one when rounds were missed (the workers were down): never a burst of
 * late reminders. Null when it would come at or after the decision deadline.
 */
export function nextRound(
  claim: Pick<ReminderClaim, 'createdAt' | 'remindAfterSeconds' | 'decisionDueAt'>,
  round: number,
  nowMs: number,
): { round: number; atMs: number } | null {
  const intervalMs = claim.remindAfterSeconds! * 1000;
  const requestedAt = new Date(claim.createdAt).getTime();
  const next = Math.max(round + 1, Math.floor((nowMs - requestedAt) / intervalMs) + 1);
  const atMs = requestedAt + next * intervalMs;
  const dueAt = claim.decisionDueAt ? new Date(claim.decisionDueAt).getTime() : Infinity;
  return atMs < dueAt ? { round: next, atMs } : null;
}
