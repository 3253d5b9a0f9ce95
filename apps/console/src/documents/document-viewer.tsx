import { useEffect, useRef } from 'react';
import { useConsole } from '../session/console-context';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { DocumentTextBody } from './document-text';
import { downloadDocument } from './download';
import { CharRange, charactersOf, pageAt } from './text-layout';

/**
 * A document's extracted text in a dialog, with the original one click away; opened at a passage (a
 * range of its text), it shows where that lies, on which page of a PDF, and highlights it.
 */
export function DocumentViewer({
  documentId,
  name,
  passage = null,
  onClose,
}: {
  documentId: string;
  name: string;
  passage?: CharRange | null;
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
        {text.data ? (
          <p className="muted break">
            {text.data.path}
            {text.data.pages.length
              ? ` · ${text.data.pages.length} page${text.data.pages.length === 1 ? '' : 's'}`
              : ''}
          </p>
        ) : null}
        <ErrorNotice error={text.error ?? download.error} />
        {text.loading && !text.data ? <Spinner label="Loading the text…" /> : null}
        {text.data?.text && passage ? (
          <p className="passage-at" data-testid="passage-at">
            {passageNote(passage, pageAt(text.data.pages, passage.start))}
          </p>
        ) : null}
        {text.data ? (
          text.data.text ? (
            <DocumentTextBody text={text.data.text} pages={text.data.pages} passage={passage} />
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

/** "The passage on page 12, characters 1,200–1,850, is highlighted below." */
function passageNote(passage: CharRange, page: number | null): string {
  return `The passage ${page !== null ? `on page ${page}, ` : 'at '}${charactersOf(passage)}, is highlighted below.`;
}
