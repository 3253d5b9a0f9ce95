import { useState } from 'react';
import type { TreeFile } from '../api/types';
import { useConsole } from '../session/console-context';
import { DocumentViewer } from '../documents/document-viewer';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { formatBytes } from '../ui/format';
import { useLoad } from '../ui/hooks';

/** The ingested hierarchy as in the document system: workgroups, then folders and files, opened on demand. */
export function IngestedTree({ dataSourceId, version }: { dataSourceId: string; version: number }) {
  const [opened, setOpened] = useState<TreeFile | null>(null);
  return (
    <section className="card" aria-labelledby="tree-title">
      <h2 id="tree-title">Ingested files</h2>
      <ul className="ingested" role="tree" aria-label="Ingested files">
        <TreeLevel key={version} dataSourceId={dataSourceId} onOpen={setOpened} />
      </ul>
      {opened ? (
        <DocumentViewer documentId={opened.documentId} name={opened.name} onClose={() => setOpened(null)} />
      ) : null}
    </section>
  );
}

function TreeLevel({
  dataSourceId,
  folderId,
  onOpen,
}: {
  dataSourceId: string;
  folderId?: string;
  onOpen: (file: TreeFile) => void;
}) {
  const { connector } = useConsole();
  const view = useLoad(() => connector.dataSources.tree(dataSourceId, folderId), [connector, dataSourceId, folderId]);
  if (view.error)
    return (
      <li role="none">
        <ErrorNotice error={view.error} />
      </li>
    );
  if (!view.data)
    return (
      <li role="none">
        <Spinner label="Loading…" />
      </li>
    );
  if (!folderId && !view.data.folders.length)
    return (
      <li role="none" className="empty">
        Nothing ingested yet: pick folders and sync.
      </li>
    );
  return (
    <>
      {view.data.folders.map((f) => (
        <FolderNode key={f.id} dataSourceId={dataSourceId} id={f.id} name={f.name} onOpen={onOpen} />
      ))}
      {view.data.files.map((file) => (
        <li key={file.documentId} role="treeitem" aria-label={file.name} className="file-node">
          <Button kind="link" onClick={() => onOpen(file)}>
            {file.name}
          </Button>
          <span className="muted small">{formatBytes(file.size)}</span>
        </li>
      ))}
    </>
  );
}

function FolderNode({
  dataSourceId,
  id,
  name,
  onOpen,
}: {
  dataSourceId: string;
  id: string;
  name: string;
  onOpen: (file: TreeFile) => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <li role="treeitem" aria-label={name} aria-expanded={open} className="folder-node">
      <button type="button" className="folder-toggle" onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> {name}
      </button>
      {open ? (
        <ul role="group">
          <TreeLevel dataSourceId={dataSourceId} folderId={id} onOpen={onOpen} />
        </ul>
      ) : null}
    </li>
  );
}
