import { useState } from 'react';
import type { Approval } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction } from '../ui/hooks';

/**
 * "Send again": one more delivery of a webhook that awaits its decision (the receiver lost it), with the
 * same body and callback credentials. Needs the agent-runtime or admin role; the service says so otherwise.
 */
export function RedeliverAction({ approval, onSent }: { approval: Approval; onSent: () => void }) {
  const { approvals } = useConsole();
  const action = useAction();
  const [sent, setSent] = useState<number | null>(null);
  if (approval.status !== 'AwaitingDecision') return null;
  const send = () =>
    action.run(async () => {
      setSent((await approvals.redeliver(approval.id)).attempt);
      onSent();
    });
  return (
    <div className="inline-form">
      <Button onClick={send} busy={action.busy} busyLabel="Sending…">
        Send the webhook again
      </Button>
      {sent !== null ? <Notice kind="success" title={`Sent again: attempt ${sent}`} /> : null}
      <ErrorNotice error={action.error} />
    </div>
  );
}
