import { FormEvent, useState } from 'react';
import type { SearchHit } from '../api/types';
import { useConsole } from '../session/console-context';
import { Link } from '../router/router';
import { DocumentViewer } from '../documents/document-viewer';
import { downloadDocument } from '../documents/download';
import { Button } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { Snippet } from './snippet';

/** Search across the project's data sources: hits with snippet, path and data source; open the text or download. */
export function SearchPage() {
  const { connector, projectId } = useConsole();
  const sources = useLoad(() => connector.dataSources.list(projectId), [connector, projectId]);
  const [query, setQuery] = useState('');
  const [asked, setAsked] = useState('');
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [opened, setOpened] = useState<SearchHit | null>(null);
  const search = useAction();
  const download = useAction();
  const sourceName = (id: string) => sources.data?.find((s) => s.id === id)?.name ?? 'data source';

  const run = (event: FormEvent) => {
    event.preventDefault();
    const q = query.trim();
    if (!q) return;
    void search.run(async () => {
      const page = await connector.search(projectId, q);
      setAsked(q);
      setHits(page.hits);
      setCursor(page.nextCursor);
    });
  };
  const more = () =>
    search.run(async () => {
      const page = await connector.search(projectId, asked, cursor);
      setHits([...(hits ?? []), ...page.hits]);
      setCursor(page.nextCursor);
    });

  return (
    <section>
      <h1>Search</h1>
      <form className="search-bar" role="search" onSubmit={run}>
        <label htmlFor="search-q" className="visually-hidden">
          Search the project's documents
        </label>
        <input
          id="search-q"
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder='Words, "a phrase", or part of a file name'
        />
        <Button type="submit" kind="primary" busy={search.busy} busyLabel="Searching…">
          Search
        </Button>
      </form>
      <ErrorNotice error={search.error ?? download.error} />
      {hits && !hits.length ? (
        <p className="empty">
          Nothing found for “{asked}”. Try other words, or check that the data sources have synced.
        </p>
      ) : null}
      {hits?.length ? (
        <ol className="hits" aria-label="Search results">
          {hits.map((hit) => (
            <li key={hit.documentId} className="hit">
              <div className="hit-head">
                <Button kind="link" className="hit-name" onClick={() => setOpened(hit)}>
                  {hit.name}
                </Button>
                <span className="muted small">
                  in <Link to={`/data-sources/${hit.dataSourceId}`}>{sourceName(hit.dataSourceId)}</Link>
                </span>
              </div>
              <p className="hit-path muted small">{hit.path}</p>
              <Snippet text={hit.snippet} />
              <div className="row">
                <Button onClick={() => setOpened(hit)}>Open text</Button>
                <Button
                  onClick={() => void download.run(() => downloadDocument(connector, hit.documentId, hit.name))}
                  disabled={download.busy}
                >
                  Download original
                </Button>
              </div>
            </li>
          ))}
        </ol>
      ) : null}
      {cursor ? (
        <Button onClick={() => void more()} busy={search.busy} busyLabel="Loading…">
          More results
        </Button>
      ) : null}
      {opened ? (
        <DocumentViewer documentId={opened.documentId} name={opened.name} onClose={() => setOpened(null)} />
      ) : null}
    </section>
  );
}
