import type { ReactNode } from 'react';
import type { Approval, ApprovalLogEntry } from '../api/types';
import { Button, StatusBadge } from '../ui/controls';
import { formatTime } from '../ui/format';

/** One approval from request to decision: each delivery attempt, the decision and its comment. */
export function ApprovalTimeline({
  approval,
  onClose,
  children,
}: {
  approval: Approval;
  onClose?: () => void;
  /** Actions on this approval, below its facts. */
  children?: ReactNode;
}) {
  return (
    <article className="card" aria-label="Approval timeline">
      <header className="card-head">
        <h2>{approval.agentName}</h2>
        <div className="row">
          <StatusBadge status={approval.status} />
          {onClose ? (
            <Button kind="link" onClick={onClose}>
              Close
            </Button>
          ) : null}
        </div>
      </header>
      <dl className="facts">
        <dt>Execution</dt>
        <dd className="break">{approval.executionId}</dd>
        <dt>Step</dt>
        <dd>{approval.stepId}</dd>
        <dt>Webhook</dt>
        <dd className="break">
          {approval.webhook.url} ({approval.webhook.authentication.type}, {approval.webhook.timeoutSeconds} s timeout,{' '}
          {retries(approval.webhook.maxRetryAttempts)})
        </dd>
        {approval.message ? (
          <>
            <dt>Message</dt>
            <dd>{approval.message}</dd>
          </>
        ) : null}
      </dl>
      {children}
      <ol className="timeline">
        {approval.log.map((entry, i) => (
          <li key={i} className={`timeline-${entry.type.toLowerCase()}`}>
            <span className="timeline-when">{formatTime(entry.at)}</span>
            <span className="timeline-what">{describe(entry)}</span>
            {entry.error ? <span className="timeline-error">{entry.error}</span> : null}
            {entry.comment ? <q className="timeline-comment">{entry.comment}</q> : null}
          </li>
        ))}
      </ol>
    </article>
  );
}

const retries = (n: number) => (n === 0 ? 'no retry' : n === 1 ? '1 retry' : `${n} retries`);

function describe(entry: ApprovalLogEntry): string {
  // Without an HTTP answer the error says what happened (refused, timed out); "no answer in 2 ms" misled.
  const outcome =
    entry.httpStatus !== null
      ? `HTTP ${entry.httpStatus}${entry.durationMs !== null ? ` after ${entry.durationMs} ms` : ''}`
      : 'no HTTP answer';
  switch (entry.type) {
    case 'Requested':
      return 'Requested by the agent run';
    case 'DeliveryAttempt':
      return `Delivery attempt ${entry.attempt ?? ''}: ${outcome}`;
    case 'Delivered':
      return `Delivered${entry.attempt ? ` on attempt ${entry.attempt}` : ''}: the receiver confirmed receipt${entry.httpStatus !== null ? ` (HTTP ${entry.httpStatus})` : ''}`;
    case 'DeliveryFailed':
      return 'Delivery failed: every attempt was refused or timed out';
    case 'CallbackRejected':
      return 'A callback was rejected (wrong token)';
    case 'Decided':
      return `Decision received${entry.decidedBy ? ` from ${entry.decidedBy}` : ''}`;
    case 'Cancelled':
      return 'Cancelled';
    case 'TimedOut':
      return 'No decision before the deadline: timed out';
  }
}
