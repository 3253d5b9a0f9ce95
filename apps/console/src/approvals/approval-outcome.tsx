import type { Approval } from '../api/types';
import { formatTime } from '../ui/format';
import { isOpen } from './deadline';
import { decisionLine, deliveryEnd } from './log-entries';

/** Where an approval stands, said first: its decision and by whom, why delivery ended, or what it waits for. */
export function ApprovalOutcome({ approval }: { approval: Approval }) {
  return (
    <div className={`outcome outcome-${approval.status.toLowerCase()}`} data-testid="approval-outcome">
      <p className="outcome-title">{headline(approval)}</p>
      {approval.decidedAt && !isOpen(approval) ? <p className="muted small">{formatTime(approval.decidedAt)}</p> : null}
      {isOpen(approval) && approval.decisionPageUrl ? (
        <p className="small">
          <a href={approval.decisionPageUrl} target="_blank" rel="noopener noreferrer">
            Open the decision page
          </a>{' '}
          <span className="muted">
            (a page where a person approves or denies; anyone with its link can, until the decision)
          </span>
        </p>
      ) : null}
    </div>
  );
}

function headline(approval: Approval): string {
  switch (approval.status) {
    case 'Pending':
      return 'Being delivered: waiting for the receiver to confirm receipt';
    case 'AwaitingDecision':
      return 'Awaiting a decision';
    case 'Approved':
    case 'Denied':
      return decisionLine(approval);
    case 'DeliveryFailed':
      return deliveryEnd(approval) ?? 'Delivery failed';
    case 'Cancelled':
      return 'Cancelled before a decision';
    case 'TimedOut':
      return 'Timed out: no decision by the deadline';
  }
}
