import { Fragment, useEffect, useMemo, useRef } from 'react';
import type { PageRange } from '../api/types';
import { CharRange, layOutText } from './text-layout';

/**
 * A document's extracted text: for a PDF, a label where each page begins; a passage, when one was
 * opened, highlighted and scrolled into view. Every piece is text, so nothing in a document becomes markup.
 */
export function DocumentTextBody({
  text,
  pages,
  passage,
}: {
  text: string;
  pages: PageRange[];
  passage: CharRange | null;
}) {
  const pieces = useMemo(() => layOutText(text, pages, passage), [text, pages, passage]);
  const firstMark = useRef<HTMLElement>(null);
  const firstMarked = pieces.findIndex((p) => p.marked);
  useEffect(() => {
    firstMark.current?.scrollIntoView({ block: 'center' });
  }, [pieces]);

  return (
    <pre className="document-text" aria-label="Document text">
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {piece.pagesStarting.map((page) => (
            <span key={page} className="page-label" data-page={page}>
              Page {page}
            </span>
          ))}
          {piece.marked ? <mark ref={i === firstMarked ? firstMark : undefined}>{piece.text}</mark> : piece.text}
        </Fragment>
      ))}
    </pre>
  );
}
