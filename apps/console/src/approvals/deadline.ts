import type { Approval } from '../api/types';
import { formatTime } from '../ui/format';

/** An approval still waiting for its decision: being delivered, or delivered and awaiting it. */
export const isOpen = (approval: Pick<Approval, 'status'>) =>
  approval.status === 'Pending' || approval.status === 'AwaitingDecision';

/** "in 59 min", "in 2 h 5 min", "in 3 days": how long from `now` until `at`; "passed" once it has. */
export function timeUntil(at: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(at) - now) / 1000);
  if (seconds <= 0) return 'passed';
  if (seconds < 60) return `in ${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `in ${Math.round(hours / 24)} days`;
}

/**
 * The decision deadline (`decisionTimeoutSeconds` when the approval was requested) as the admin reads it:
 * when, and how long is left while a decision is awaited. Null for an approval without one.
 */
export function deadlineText(approval: Approval, now = Date.now()): string | null {
  if (!approval.decisionDueAt) return null;
  const when = formatTime(approval.decisionDueAt);
  if (isOpen(approval)) return `${when} (${timeUntil(approval.decisionDueAt, now)})`;
  if (approval.status === 'TimedOut') return `${when} (passed without a decision)`;
  return when;
}

/** "every 5 min", "every 2 h", "every 1 day": the reminder interval. */
export function every(seconds: number): string {
  if (seconds % 86_400 === 0) return `every ${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
  if (seconds % 3600 === 0) return `every ${seconds / 3600} h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds} s`;
}
