import { useEffect, useState } from 'react';
import type { DataSource } from '../api/types';
import { useConsole } from '../session/console-context';
import { navigate } from '../router/router';
import { Reconnect } from '../connections/reconnect';
import { FolderPicker } from '../folder-picker/folder-picker';
import { PickerRecovery } from '../folder-picker/picker-recovery';
import { Button, Spinner, StatusBadge } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { DataSourceUses } from './data-source-uses';
import { IngestedTree } from './ingested-tree';
import { MembersPanel } from './members-panel';
import { describeSelection, nameFromMarks } from '../folder-picker/selection-summary';
import { SyncPanel } from './sync-panel';

/** One data source: ingestion status, folders, sync with live progress and history, the ingested tree, members. */
export function DataSourceView({ dataSourceId }: { dataSourceId: string }) {
  const { connector } = useConsole();
  const source = useLoad(() => connector.dataSources.get(dataSourceId), [connector, dataSourceId]);
  const [picking, setPicking] = useState(false);
  const [treeVersion, setTreeVersion] = useState(0);
  const [deleting, setDeleting] = useState(false);
  const remove = useAction();
  const status = source.data?.ingestionStatus;
  const extracting = (source.data?.extraction.pending ?? 0) > 0;
  // The status and the text extraction follow the worker: look again while a sync or an extraction is running.
  useEffect(() => {
    if (status !== 'Syncing' && !extracting) return;
    const timer = window.setTimeout(() => void source.reload(), 1000);
    return () => clearTimeout(timer);
  }, [status, extracting, source.data, source.reload]);

  if (source.error && !source.data)
    return (
      <ErrorNotice error={source.error}>
        <Button onClick={() => navigate('/data-sources')}>Back to the data sources</Button>
      </ErrorNotice>
    );
  if (!source.data) return <Spinner label="Loading the data source…" />;
  const ds = source.data;
  // A change answers the data source without its extraction progress: keep the last one shown until the next look.
  const changed = (updated: DataSource) => source.setData({ ...ds, ...updated });
  const runEnded = () => {
    void source.reload();
    setTreeVersion((v) => v + 1);
  };

  return (
    <section>
      <div className="page-head">
        <h1>{ds.name}</h1>
        <div className="row">
          <span className="muted">Ingestion status</span>
          <span data-testid="ingestion-status">
            <StatusBadge status={ds.ingestionStatus} />
          </span>
        </div>
      </div>
      <DataSourceUses dataSource={ds} />
      {ds.ingestionStatus === 'NeedsReauth' ? (
        <Notice kind="warning" title="Reconnect to the document system">
          <p>
            The document system no longer accepts this data source's authorization (it expired, was revoked, or the
            document system forgot it). Reconnect, then sync again.
          </p>
          <Reconnect dataSource={ds} onChanged={changed} />
        </Notice>
      ) : null}
      {ds.ingestionStatus === 'NotConfigured' ? (
        <Notice kind="warning" title="No folders selected">
          Choose folders before the first sync.
        </Notice>
      ) : null}
      <section className="card" aria-labelledby="folders-title">
        <div className="card-head">
          <h2 id="folders-title">Folders</h2>
          <Button onClick={() => setPicking(!picking)} aria-expanded={picking}>
            {picking ? 'Close the folder picker' : 'Edit folders'}
          </Button>
        </div>
        <p className="muted" data-testid="selection-summary">
          {describeSelection(ds.selection, nameFromMarks(ds.selectionMarks))}
        </p>
        {picking ? (
          <FolderPicker
            dataSource={ds}
            onSaved={changed}
            recovery={(error) => <PickerRecovery error={error} dataSource={ds} onChanged={changed} />}
          />
        ) : null}
      </section>
      <SyncPanel dataSource={ds} onRunEnded={runEnded} onChooseFolders={() => setPicking(true)} />
      <IngestedTree dataSourceId={ds.id} version={treeVersion} />
      <MembersPanel dataSourceId={ds.id} />
      <section className="card danger-zone">
        {deleting ? (
          <div className="confirm">
            <p>Delete “{ds.name}” with every file, text and search entry it ingested?</p>
            <div className="row">
              <Button
                kind="danger"
                busy={remove.busy}
                busyLabel="Deleting…"
                onClick={() =>
                  void remove.run(async () => (await connector.dataSources.remove(ds.id), navigate('/data-sources')))
                }
              >
                Yes, delete
              </Button>
              <Button kind="link" onClick={() => setDeleting(false)}>
                Keep it
              </Button>
            </div>
          </div>
        ) : (
          <Button kind="danger" onClick={() => setDeleting(true)}>
            Delete data source
          </Button>
        )}
        <ErrorNotice error={remove.error} />
      </section>
    </section>
  );
}
