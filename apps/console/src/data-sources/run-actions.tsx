import { useState } from 'react';
import type { SyncRun } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';

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

/** At most this many held files are listed; the ledger below lists them all (outcome Held). */
const HELD_SHOWN = 50;

/**
 * The deletion guard held this run's deletions (too many at once, or a selected folder vanished): the
 * documents stay until someone who may confirms that they really went. The files are listed, the reason
 * said once (the run's own words), and the deletion asked once more before it is made.
 */
export function HeldDeletions({ run, onConfirmed }: { run: SyncRun; onConfirmed: () => void }) {
  const { connector } = useConsole();
  const action = useAction();
  const [asking, setAsking] = useState(false);
  const [deleted, setDeleted] = useState<number | null>(null);
  const held = useLoad(
    async () => (run.deletionsHeld ? connector.sync.files(run.id, { outcome: 'Held', limit: HELD_SHOWN }) : null),
    [connector, run.id, run.deletionsHeld],
  );
  if (deleted !== null) return <Notice kind="success" title={`${deleted} ${documents(deleted)} deleted`} />;
  if (!run.deletionsHeld) return null;
  const n = run.deletionsHeld;
  const confirm = () =>
    action.run(async () => {
      setDeleted((await connector.sync.confirmDeletions(run.id)).deleted);
      onConfirmed();
    });
  return (
    <Notice kind="warning" title={`${n} ${documents(n)} kept until you confirm their deletion`}>
      <p>{run.error}</p>
      <ul className="held-files" aria-label="Files whose deletion is held">
        {held.data?.items.map((f) => (
          <li key={f.externalId} className="break" title={f.path}>
            {f.path}
          </li>
        ))}
      </ul>
      {held.data?.nextCursor ? <p className="muted">The list below shows the rest (outcome Held).</p> : null}
      <ErrorNotice error={held.error} />
      {asking ? (
        <div className="confirm" role="group" aria-label="Confirm the deletion">
          <p>
            Delete {n} {documents(n)}?
          </p>
          <Button kind="danger" onClick={confirm} busy={action.busy} busyLabel="Deleting…">
            Yes, delete
          </Button>
          <Button onClick={() => setAsking(false)}>Keep them</Button>
        </div>
      ) : (
        <Button kind="danger" onClick={() => setAsking(true)}>
          Delete these documents…
        </Button>
      )}
      <ErrorNotice error={action.error} />
    </Notice>
  );
}

function documents(n: number): string {
  return n === 1 ? 'document' : 'documents';
}
