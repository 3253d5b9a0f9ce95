import { useState } from 'react';
import type { SyncRun } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction } from '../ui/hooks';

const ACTIVE = ['Queued', 'Running'];

/** Cancel a run in progress: nothing it has not committed yet is kept. */
export function CancelRun({ run, onCancelled }: { run: SyncRun; onCancelled: () => void }) {
  const { connector } = useConsole();
  const action = useAction();
  if (!ACTIVE.includes(run.status)) return null;
  const cancel = () => action.run(async () => (await connector.sync.cancel(run.id), onCancelled()));
  return (
    <div className="row">
      <Button kind="danger" onClick={cancel} busy={action.busy} busyLabel="Cancelling…">
        Cancel the sync
      </Button>
      <ErrorNotice error={action.error} />
    </div>
  );
}

/**
 * The deletion guard held this run's deletions (too many at once, or a selected folder vanished): the
 * documents stay until someone who may confirms that they really went.
 */
export function HeldDeletions({ run, onConfirmed }: { run: SyncRun; onConfirmed: () => void }) {
  const { connector } = useConsole();
  const action = useAction();
  const [deleted, setDeleted] = useState<number | null>(null);
  if (deleted !== null) return <Notice kind="success" title={`${deleted} document(s) deleted`} />;
  if (!run.deletionsHeld) return null;
  const confirm = () =>
    action.run(async () => {
      setDeleted((await connector.sync.confirmDeletions(run.id)).deleted);
      onConfirmed();
    });
  return (
    <Notice kind="warning" title={`${run.deletionsHeld} deletion(s) held`}>
      <p>{run.error ?? 'This run would have deleted many documents at once; they are kept until you confirm.'}</p>
      <Button kind="danger" onClick={confirm} busy={action.busy} busyLabel="Deleting…">
        Confirm the deletions
      </Button>
      <ErrorNotice error={action.error} />
    </Notice>
  );
}
