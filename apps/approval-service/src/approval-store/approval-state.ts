/**
 * The approval state machine: the states and, for each, the states it may be entered from.
 * Pending (created, delivering) → AwaitingDecision (2xx received) → Approved | Denied;
 * Pending → DeliveryFailed; Pending | AwaitingDecision → Cancelled | TimedOut (the decision deadline
 * passed); Pending may go straight to a decision (the receiver called back before answering).
 */
import type { ApprovalStatus } from '@app/contracts/views';

export { APPROVAL_STATUSES } from '@app/contracts/views';
export type { ApprovalStatus };

export const APPROVAL_MOVES: Record<ApprovalStatus, ApprovalStatus[]> = {
  Pending: [],
  AwaitingDecision: ['Pending'],
  Approved: ['Pending', 'AwaitingDecision'],
  Denied: ['Pending', 'AwaitingDecision'],
  DeliveryFailed: ['Pending'],
  Cancelled: ['Pending', 'AwaitingDecision'],
  TimedOut: ['Pending', 'AwaitingDecision'],
};

export const OPEN_STATUSES: ApprovalStatus[] = ['Pending', 'AwaitingDecision'];

/** The final states: the move into each comes with its decision event. */
export type DecisionStatus = Exclude<ApprovalStatus, 'Pending' | 'AwaitingDecision'>;

export type { ApprovalLogEntryType as LogEntryType } from '@app/contracts/views';
