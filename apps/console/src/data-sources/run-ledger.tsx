import { useState } from 'react';
import { RUN_FILE_OUTCOMES, RunFileOutcome, SyncRun, SyncRunFile } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, SelectField } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';

const PAGE = 50;

/** What a run did with each file, and why a file is not searchable: filtered by outcome, a page at a time. */
export function RunLedger({ run }: { run: SyncRun }) {
  const { connector } = useConsole();
  const [outcome, setOutcome] = useState<RunFileOutcome | ''>('');
  const [more, setMore] = useState<SyncRunFile[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const first = useLoad(async () => {
    const page = await connector.sync.files(run.id, { outcome: outcome || undefined, limit: PAGE });
    setMore([]);
    setCursor(page.nextCursor);
    return page.items;
  }, [connector, run.id, run.status, outcome]);
  const next = useAction();
  const loadMore = () =>
    next.run(async () => {
      const page = await connector.sync.files(run.id, { outcome: outcome || undefined, limit: PAGE, cursor });
      setMore((known) => [...known, ...page.items]);
      setCursor(page.nextCursor);
    });
  const files = [...(first.data ?? []), ...more];
  return (
    <div className="run-ledger">
      <SelectField<RunFileOutcome | ''>
        label="Files of the latest run"
        value={outcome}
        onChange={setOutcome}
        options={[{ value: '', label: 'Every outcome' }, ...RUN_FILE_OUTCOMES.map((o) => ({ value: o, label: o }))]}
      />
      <ErrorNotice error={first.error ?? next.error} />
      {first.data && !files.length ? (
        <p className="empty">No file{outcome ? ` with outcome ${outcome}` : ''}.</p>
      ) : null}
      {files.length ? (
        <div className="table-wrap">
          <table aria-label="Files of the run">
            <thead>
              <tr>
                <th>File</th>
                <th>Outcome</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              {files.map((f) => (
                <tr key={f.externalId}>
                  <td className="break" title={f.path}>
                    {f.name}
                  </td>
                  <td>{f.outcome}</td>
                  <td className="muted">{f.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {cursor ? (
        <Button onClick={loadMore} busy={next.busy} busyLabel="Loading…">
          Load more files
        </Button>
      ) : null}
    </div>
  );
}
