import type { Passage, PassagePage } from '../api/types';
import { placeOf } from '../documents/text-layout';
import { Link } from '../router/router';
import { Button } from '../ui/controls';

/**
 * The passages an agent would quote, best first: each one's text as the service gives it (plain text,
 * rendered as text), its document, page and character range, and a way to read it in its document.
 */
export function PassageList({
  answer,
  sourceName,
  onOpen,
}: {
  answer: PassagePage;
  sourceName: (dataSourceId: string) => string;
  onOpen: (passage: Passage) => void;
}) {
  return (
    <>
      <ol className="hits" aria-label="Passages">
        {answer.passages.map((passage) => (
          <li key={`${passage.documentId}:${passage.start}`} className="hit passage">
            <div className="hit-head">
              <Button kind="link" className="hit-name" onClick={() => onOpen(passage)}>
                {passage.name}
              </Button>
              <span className="muted small">
                in <Link to={`/data-sources/${passage.dataSourceId}`}>{sourceName(passage.dataSourceId)}</Link>
              </span>
            </div>
            <p className="hit-path muted small">{passage.path}</p>
            <p className="passage-place small">{placeOf(passage, passage.page)}</p>
            <blockquote className="passage-text">{passage.text}</blockquote>
            <Button onClick={() => onOpen(passage)}>Open at this passage</Button>
          </li>
        ))}
      </ol>
      {answer.truncated ? (
        <p className="muted small">
          Some passages were cut short or left out, to keep the answer within its character budget.
        </p>
      ) : null}
    </>
  );
}
