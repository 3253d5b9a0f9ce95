import { FormEvent, useState } from 'react';
import type { PassagePage, SearchHit } from '../api/types';
import { useConsole } from '../session/console-context';
import { Link } from '../router/router';
import { DocumentViewer } from '../documents/document-viewer';
import { downloadDocument } from '../documents/download';
import type { CharRange } from '../documents/text-layout';
import { Button } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { PassageList } from './passage-list';
import { Snippet } from './snippet';

type Mode = 'documents' | 'passages';

interface Opened {
  documentId: string;
  name: string;
  passage: CharRange | null;
}

/**
 * Search across the project's data sources, or one of them: documents (hits with snippet, path and data
 * source) or passages (the text to quote, with its page and character range); open the text or download.
 */
export function SearchPage() {
  const { connector, projectId } = useConsole();
  const sources = useLoad(() => connector.dataSources.list(projectId), [connector, projectId]);
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<Mode>('documents');
  const [source, setSource] = useState('');
  const [asked, setAsked] = useState<{ q: string; mode: Mode; source: string } | null>(null);
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [passages, setPassages] = useState<PassagePage | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [opened, setOpened] = useState<Opened | null>(null);
  const search = useAction();
  const download = useAction();
  const sourceName = (id: string) => sources.data?.find((s) => s.id === id)?.name ?? 'data source';

  const ask = (q: string, how: Mode, within: string) =>
    search.run(async () => {
      const dataSourceId = within || undefined;
      if (how === 'passages') {
        setPassages(await connector.passages(projectId, q, dataSourceId));
        setHits(null);
        setCursor(null);
      } else {
        const page = await connector.search(projectId, q, null, dataSourceId);
        setHits(page.hits);
        setCursor(page.nextCursor);
        setPassages(null);
      }
      setAsked({ q, mode: how, source: within });
    });
  const run = (event: FormEvent) => {
    event.preventDefault();
    const q = query.trim();
    if (q) void ask(q, mode, source);
  };
  // Switching after a search answers the question in the box the other way at once.
  const switchTo = (how: Mode) => {
    setMode(how);
    const q = query.trim();
    if (asked && q) void ask(q, how, source);
  };
  const more = () =>
    search.run(async () => {
      if (!asked) return;
      const page = await connector.search(projectId, asked.q, cursor, asked.source || undefined);
      setHits([...(hits ?? []), ...page.hits]);
      setCursor(page.nextCursor);
    });
  const found = hits?.length ?? passages?.passages.length;

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
        <label htmlFor="search-source" className="visually-hidden">
          Data source
        </label>
        <select id="search-source" value={source} onChange={(e) => setSource(e.target.value)}>
          <option value="">All data sources</option>
          {sources.data?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
        <Button type="submit" kind="primary" busy={search.busy} busyLabel="Searching…">
          Search
        </Button>
      </form>
      <fieldset className="choice search-mode">
        <legend className="visually-hidden">Find</legend>
        {(['documents', 'passages'] as const).map((how) => (
          <label key={how}>
            <input type="radio" name="search-mode" checked={mode === how} onChange={() => switchTo(how)} />{' '}
            {how === 'documents' ? 'Documents' : 'Passages: the text to quote, with its page'}
          </label>
        ))}
      </fieldset>
      <ErrorNotice error={search.error ?? download.error} />
      {asked && found === 0 ? (
        <p className="empty">
          Nothing found for “{asked.q}”. Try other words, or check that the data sources have synced.
        </p>
      ) : null}
      {hits?.length ? (
        <ol className="hits" aria-label="Search results">
          {hits.map((hit) => (
            <li key={hit.documentId} className="hit">
              <div className="hit-head">
                <Button kind="link" className="hit-name" onClick={() => setOpened({ ...hit, passage: null })}>
                  {hit.name}
                </Button>
                <span className="muted small">
                  in <Link to={`/data-sources/${hit.dataSourceId}`}>{sourceName(hit.dataSourceId)}</Link>
                </span>
              </div>
              <p className="hit-path muted small">{hit.path}</p>
              <Snippet text={hit.snippet} />
              <div className="row">
                <Button onClick={() => setOpened({ ...hit, passage: null })}>Open text</Button>
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
      {passages?.passages.length ? (
        <PassageList answer={passages} sourceName={sourceName} onOpen={(p) => setOpened({ ...p, passage: p })} />
      ) : null}
      {cursor ? (
        <Button onClick={() => void more()} busy={search.busy} busyLabel="Loading…">
          More results
        </Button>
      ) : null}
      {opened ? (
        <DocumentViewer
          documentId={opened.documentId}
          name={opened.name}
          passage={opened.passage}
          onClose={() => setOpened(null)}
        />
      ) : null}
    </section>
  );
}
