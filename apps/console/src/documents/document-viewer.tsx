import { useEffect, useRef } from 'react';
import { useConsole } from '../session/console-context';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { downloadDocument } from './download';

/** A document's extracted text in a dialog, with the original one click away. */
export function DocumentViewer({
  documentId,
  name,
  onClose,
}: {
  documentId: string;
  name: string;
  onClose: () => void;
}) {
  const { connector } = useConsole();
  const text = useLoad(() => connector.documents.text(documentId), [connector, documentId]);
  const download = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <div className="overlay" onClick={onClose}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="viewer-title"
        onClick={(e) => e.stopPropagation()}
      >
        <header className="dialog-head">
          <h2 id="viewer-title" tabIndex={-1} ref={heading}>
            {name}
          </h2>
          <div className="row">
            <Button
              onClick={() => void download.run(() => downloadDocument(connector, documentId, name))}
              busy={download.busy}
              busyLabel="Downloading…"
            >
              Download original
            </Button>
            <Button kind="link" onClick={onClose}>
              Close
            </Button>
          </div>
        </header>
        {text.data ? <p className="muted break">{text.data.path}</p> : null}
        <ErrorNotice error={text.error ?? download.error} />
        {text.loading && !text.data ? <Spinner label="Loading the text…" /> : null}
        {text.data ? (
          text.data.text ? (
            <pre className="document-text" aria-label="Document text">
              {text.data.text}
            </pre>
          ) : (
            <p className="muted">
              No text could be extracted ({text.data.extraction.error ?? text.data.extraction.status}); download the
              original instead.
            </p>
          )
        ) : null}
      </div>
    </div>
  );
}
