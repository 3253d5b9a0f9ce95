import { useState } from 'react';
import { APPROVAL_STATUSES, ApprovalStatus } from '../api/types';
import { useConsole } from '../session/console-context';
import { Link, navigate } from '../router/router';
import { Button, SelectField, Spinner, StatusBadge, spaced } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { formatTime } from '../ui/format';
import { useLoad } from '../ui/hooks';
import { ApprovalTimeline } from './approval-timeline';
import { isOpen } from './deadline';
import { RedeliverAction } from './redeliver-action';
import { WebhookTestForm } from './webhook-test-form';

/** Monitor of the approval-service: approvals by status, one approval's timeline, redelivery, a webhook test. */
export function ApprovalsPage({ approvalId }: { approvalId?: string }) {
  const { approvals, config } = useConsole();
  const [status, setStatus] = useState<ApprovalStatus | ''>('');
  const list = useLoad(() => approvals.list(status), [approvals, status]);
  const one = useLoad(async () => (approvalId ? approvals.get(approvalId) : null), [approvals, approvalId]);

  return (
    <section>
      <div className="page-head">
        <h1>Approvals</h1>
        <Button
          onClick={() => void (list.reload(), one.reload())}
          busy={list.loading && !!list.data}
          busyLabel="Refreshing…"
        >
          Refresh
        </Button>
      </div>
      <p className="muted">From the approval-service at {config.approvalServiceUrl}.</p>
      <WebhookTestForm />
      <div className="split">
        <div>
          <SelectField<ApprovalStatus | ''>
            label="Status"
            value={status}
            onChange={setStatus}
            options={[{ value: '', label: 'All' }, ...APPROVAL_STATUSES.map((s) => ({ value: s, label: spaced(s) }))]}
          />
          <ErrorNotice
            error={list.error}
            title={list.error ? `The approval-service at ${config.approvalServiceUrl} did not answer` : undefined}
          >
            <Button onClick={() => void list.reload()}>Try again</Button>
          </ErrorNotice>
          {list.loading && !list.data ? <Spinner label="Loading approvals…" /> : null}
          {list.data && !list.data.length ? (
            <p className="empty">No approvals{status ? ` with status ${spaced(status)}` : ''}.</p>
          ) : null}
          {list.data?.length ? (
            <div className="table-wrap">
              <table aria-label="Approvals">
                <thead>
                  <tr>
                    <th>Agent</th>
                    <th>Execution / step</th>
                    <th>Status</th>
                    <th>Requested</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((a) => (
                    <tr
                      key={a.id}
                      aria-current={a.id === approvalId || undefined}
                      className={a.id === approvalId ? 'row-current' : ''}
                    >
                      <td>
                        <Link to={`/approvals/${a.id}`}>{a.agentName}</Link>
                      </td>
                      <td className="break small">
                        {a.executionId} / {a.stepId}
                      </td>
                      <td>
                        <StatusBadge status={a.status} />
                        {a.decisionDueAt && isOpen(a) ? (
                          <span className="due small muted">decide by {formatTime(a.decisionDueAt)}</span>
                        ) : null}
                      </td>
                      <td>{formatTime(a.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </div>
        <div>
          {approvalId ? (
            <>
              <ErrorNotice error={one.error} />
              {one.data ? (
                <ApprovalTimeline approval={one.data} onClose={() => navigate('/approvals')}>
                  <RedeliverAction approval={one.data} onSent={() => void one.reload()} />
                </ApprovalTimeline>
              ) : one.loading ? (
                <Spinner label="Loading the approval…" />
              ) : null}
            </>
          ) : (
            <p className="empty">Choose an approval to see its timeline.</p>
          )}
        </div>
      </div>
    </section>
  );
}
