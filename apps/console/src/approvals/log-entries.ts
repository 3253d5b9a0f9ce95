import type { Approval, ApprovalLogEntry } from '../api/types';
import { formatTime } from '../ui/format';

const GONE = 410;

/** What an attempt got back: the HTTP answer and how long it took, or that none came. */
export function attemptOutcome(entry: ApprovalLogEntry): string {
  // Without an HTTP answer the error says what happened (refused, timed out); "no answer in 2 ms" misled.
  return entry.httpStatus !== null
    ? `HTTP ${entry.httpStatus}${entry.durationMs !== null ? ` after ${entry.durationMs} ms` : ''}`
    : 'no HTTP answer';
}

/**
 * The entry's error, unless it only repeats what its line says already: the service writes "HTTP 500"
 * for a non-2xx answer, which the line shows as "HTTP 500 after 12 ms"; the end of delivery and the
 * deadline are said by the line in the admin's words.
 */
export function errorBeyond(entry: ApprovalLogEntry, approval: Approval): string | null {
  if (!entry.error) return null;
  if (entry.httpStatus !== null && entry.error.trim() === `HTTP ${entry.httpStatus}`) return null;
  if (entry.type === 'DeliveryFailed' && deliveryEnd(approval)) return null;
  if (entry.type === 'TimedOut') return null;
  return entry.error;
}

/**
 * Why delivery ended, from the attempts logged before it: a receiver that answered 410 Gone stopped it
 * after that attempt; otherwise every attempt allowed was made and none was accepted. Null when the log
 * holds no attempt (a list's shortened log): the service's own reason is shown then.
 */
export function deliveryEnd(approval: Approval): string | null {
  const end = approval.log.findIndex((e) => e.type === 'DeliveryFailed');
  const attempts = approval.log
    .slice(0, end < 0 ? approval.log.length : end)
    .filter((e) => e.type === 'DeliveryAttempt' && e.reminder === null);
  const last = attempts[attempts.length - 1];
  if (!last) return null;
  if (last.httpStatus === GONE)
    return `Delivery stopped: the receiver answered 410 Gone to attempt ${last.attempt ?? attempts.length}, so no more attempts were made`;
  const n = attempts.length;
  return n === 1
    ? `Delivery failed: the only attempt was not accepted (${attemptOutcome(last)})`
    : `Delivery failed: none of the ${n} attempts was accepted (the last: ${attemptOutcome(last)})`;
}

/** "Approved by carol@example.com": the decision recorded (one per approval, so its status), and by whom. */
export function decisionLine(approval: Approval, entry?: ApprovalLogEntry): string {
  const decision =
    approval.status === 'Approved' || approval.status === 'Denied' ? approval.status : 'Decision received';
  const by = entry?.decidedBy ?? approval.decidedBy;
  // The decision page's own name for a person who typed none.
  if (by === 'decision-page') return `${decision} on the decision page (no name given)`;
  return by ? `${decision} by ${by}` : `${decision} (no name given)`;
}

/** One line of the timeline. */
export function describe(entry: ApprovalLogEntry, approval: Approval): string {
  switch (entry.type) {
    case 'Requested':
      return 'Requested by the agent run';
    case 'DeliveryAttempt':
      return entry.reminder !== null
        ? `Reminder ${entry.reminder} (attempt ${entry.attempt ?? ''}): ${attemptOutcome(entry)}`
        : `Delivery attempt ${entry.attempt ?? ''}: ${attemptOutcome(entry)}`;
    case 'Delivered':
      return `Delivered${entry.attempt ? ` on attempt ${entry.attempt}` : ''}: the receiver confirmed receipt${entry.httpStatus !== null ? ` (HTTP ${entry.httpStatus})` : ''}`;
    case 'DeliveryFailed':
      return deliveryEnd(approval) ?? 'Delivery failed';
    case 'CallbackRejected':
      return 'A callback was rejected (wrong token)';
    case 'Decided':
      return decisionLine(approval, entry);
    case 'Cancelled':
      return 'Cancelled';
    case 'TimedOut':
      return approval.decisionDueAt
        ? `Timed out: no decision by the deadline (${formatTime(approval.decisionDueAt)})`
        : 'Timed out: no decision by the deadline';
  }
}
