import type { ReactNode } from 'react';
import type { Approval } from '../api/types';
import { Button, StatusBadge } from '../ui/controls';
import { formatTime } from '../ui/format';
import { ApprovalOutcome } from './approval-outcome';
import { deadlineText, every } from './deadline';
import { DecisionOutput } from './decision-output';
import { describe, errorBeyond } from './log-entries';

/** One approval from request to decision: where it stands, each delivery attempt, the decision and what it carried. */
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
  const deadline = deadlineText(approval);
  const { webhook } = approval;
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
      <ApprovalOutcome approval={approval} />
      <dl className="facts">
        <dt>Execution</dt>
        <dd className="break">{approval.executionId}</dd>
        <dt>Step</dt>
        <dd>{approval.stepId}</dd>
        <dt>Webhook</dt>
        <dd className="break">
          {webhook.url} ({webhook.authentication.type}, {webhook.timeoutSeconds} s timeout,{' '}
          {retries(webhook.maxRetryAttempts)}
          {webhook.remindAfterSeconds ? `, reminders ${every(webhook.remindAfterSeconds)}` : ''})
        </dd>
        <dt>Decide by</dt>
        <dd data-testid="decision-deadline">{deadline ?? 'No deadline'}</dd>
        {approval.message ? (
          <>
            <dt>Message</dt>
            <dd>{approval.message}</dd>
          </>
        ) : null}
      </dl>
      {children}
      <ol className="timeline">
        {approval.log.map((entry, i) => {
          const error = errorBeyond(entry, approval);
          return (
            <li key={i} className={`timeline-${entry.type.toLowerCase()}`}>
              <span className="timeline-when">{formatTime(entry.at)}</span>
              <span className="timeline-what">{describe(entry, approval)}</span>
              {error ? <span className="timeline-error">{error}</span> : null}
              {entry.comment ? <q className="timeline-comment">{entry.comment}</q> : null}
              {entry.type === 'Decided' && approval.output ? <DecisionOutput output={approval.output} /> : null}
            </li>
          );
        })}
      </ol>
    </article>
  );
}

const retries = (n: number) => (n === 0 ? 'no retry' : n === 1 ? '1 retry' : `${n} retries`);
