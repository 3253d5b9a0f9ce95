import { Injectable } from '@nestjs/common';
import type { SearchHitView } from '@app/contracts/views';
import { SearchConnections } from './search-connections';

/** A hit as the search statement returns it, ranked; the service adds the links. */
export type SearchRow = Omit<SearchHitView, 'score' | 'textUrl' | 'contentUrl'> & {
  /** A numeric, as PostgreSQL returns it. */
  score: number | string;
};

export interface SearchTerms {
  dataSourceIds: string[];
  q: string;
  pathPrefix: string | null;
  offset: number;
  /** One more than the page holds: the row past it tells that another page follows (it gets no snippet). */
  limit: number;
  /** The most documents the first pass takes from each way of finding them (the same for every page). */
  candidates: number;
  /** The data sources are most of the project's: their filter then excludes little. */
  mostOfProject: boolean;
}

/** The search statement over documents and their chunks. */
@Injectable()
export class SearchRepository {
  constructor(private readonly connections: SearchConnections) {}

  /**
   * Up to `limit` hits after the first `offset`, best first. Each statement is planned once per connection
   * (SearchConnections keeps generic plans there), which saves the planning on every search after (a third
   * to a half of a search within a few data sources): for most of the project or a few data sources, with
   * or without a path prefix. Under a prefix the paths are a range of the path btree, which a plan made
   * without the prefix's value can use (a `LIKE 'prefix%'` needs the value at planning).
   */
  search(terms: SearchTerms): Promise<SearchRow[]> {
    const values = [terms.dataSourceIds, terms.q, terms.pathPrefix, terms.limit, terms.offset, terms.candidates];
    const statement =
      STATEMENTS[terms.mostOfProject ? 'project' : 'sources'][terms.pathPrefix === null ? 'all' : 'under'];
    return this.connections.query<SearchRow>({ ...statement, values });
  }
}

/** A text as a LIKE pattern that matches it as written: its %, _ and \ escaped. */
const LITERALLY = (text: string) => `replace(replace(replace(${text}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
const PATH_LIKE = `d.path LIKE ${LITERALLY('$3')} || '%'`;
export const PATH_MATCHES = `($3::text IS NULL OR ${PATH_LIKE})`;
/**
 * Under a prefix ($3 set): the paths from the prefix up to the prefix and the last code point, a range of the
 * path btree (text_pattern_ops) that a generic plan can use. Byte order makes the range exactly "starts with
 * the prefix" (but for a path with U+10FFFF right after it), so the LIKE matches nothing more; it stays for
 * the plan: its low estimate has the generic plan read a narrow folder through the path index first. Without
 * it, a folder of 16 documents in the 100,000 of `bench:search` took 0.9 s a search instead of 74 ms.
 */
const PATH_WITHIN = `(d.path ~>=~ $3::text AND d.path ~<~ ($3::text || chr(1114111)) AND ${PATH_LIKE})`;
/** What each way of finding documents keeps of one: ranked where it is read, not fetched again. */
const FOUND = `d.id, d.name, d.path, ts_rank(d."openingSearch", q.words) AS text_rank, 0::real AS name_rank`;
/** Found past the opening: no text rank (such a document comes after every other, see `ranked`). */
const FOUND_DEEPER = `d.id, d.name, d.path, 0::real AS text_rank, 0::real AS name_rank`;
const FOUND_BY_NAME = `d.id, d.name, d.path, ts_rank(d."openingSearch", q.words) AS text_rank,
  ts_rank(d."nameSearch", q.names) + similarity(lower(d.name), q.raw) AS name_rank`;
/** The vectors a way of finding documents also keeps of each, for `WANTED`. */
const VECTORS = `d."nameSearch", d.search`;
/**
 * Whether a document a way found (`f`: id, "nameSearch", search) holds no negated word (`-draft`, `-"a phrase"`)
 * anywhere: the words' own match sees only the part it reads (an opening, the first 10,000 characters, a name,
 * a chunk). Its name and path, first 10,000 characters and deep chunks (by primary key) are read only when the
 * query negates a word. It filters a way's documents once taken (`WANTED_OF`): as a condition of the scan, the
 * deep chunks' cost turned the generic plans into sequential scans (docs/ingestion.md). A way then takes at
 * most $6 documents, fewer when some hold a negated word, the same for every page.
 */
const WANTED = `CASE WHEN q.unwanted IS NULL AND q.unwanted_names IS NULL THEN true ELSE NOT (
    coalesce(f."nameSearch" @@ q.unwanted_names, false) OR coalesce(f.search @@ q.unwanted, false)
    OR q.unwanted IS NOT NULL AND EXISTS (SELECT 1 FROM connector.document_chunks x
      WHERE x."documentId" = f.id AND x.index >= 8 AND x.search @@ q.unwanted)) END`;
/** The documents a way found (the statement `taken`, with `VECTORS`) that are `WANTED`. */
const WANTED_OF = (taken: string) => `SELECT f.id, f.name, f.path, f.text_rank, f.name_rank FROM (${taken}) f, q
  WHERE ${WANTED}`;
/**
 * The query's negated parts, any of them (null when none): each `!` before a lexeme or a phrase in a tsquery
 * as websearch_to_tsquery writes it; an even number of them (`--draft`) negates nothing.
 */
const NEGATED = (query: string) => `(SELECT string_agg(m[2], ' | ')::tsquery
    FROM regexp_matches(${query}::text, '(!*)(''(?:[^'']|'''')*''|\\((?:[^''()]|''(?:[^'']|'''')*'')*\\))', 'g') m
    WHERE length(m[1]) % 2 = 1)`;
const HEADLINE = `'StartSel=<mark>, StopSel=</mark>, MaxFragments=2, MaxWords=30, MinWords=12, FragmentDelimiter=" … "'`;
/**
 * The snippet of a text. ts_headline parses every word it is given (the most costly part of a search), so it
 * is given the part from 120 characters before the first word (after a space or a line break) that starts
 * with one of the query's stems to 300 after the first such word of the last stem (at most 800 further).
 * In that part, a query of several words without a phrase marks each of its words (`q.spread`): asked for
 * all of them, ts_headline marks none when they lie further apart than the part, and the whole text had to
 * be read instead (2–3 ms a hit, most of a six-word search). A phrase's part starts 120 characters before the
 * phrase as it was typed (case and line breaks aside), where the text holds it so: its words' first places
 * are often apart, and the part then missed the phrase. The whole text when no word starts so (a stem
 * is not always how the word is written: "quarry" is "quarri"), or when that part holds no match (a longer
 * word starting with the stem; a phrase further on).
 */
const SNIPPET_FROM = (text: string) => `(
  SELECT CASE WHEN strpos(near, '<mark>') > 0 THEN near ELSE ts_headline('english', t.text, q.words, ${HEADLINE}) END
  FROM (SELECT ${text} AS text OFFSET 0) t,
  LATERAL (SELECT coalesce(min(p.at), min(a.at)) AS first, coalesce(min(p.at), max(a.at)) AS last
    FROM (SELECT ' ' || replace(lower(t.text), E'\\n', ' ') AS plain OFFSET 0) l,
    LATERAL (SELECT nullif(strpos(l.plain, q.phrase), 0) AS at) p,
    LATERAL (SELECT nullif(strpos(l.plain, stem), 0) AS at FROM unnest(q.stems) stem) a) w,
  LATERAL (SELECT CASE WHEN w.first IS NULL THEN ''
    ELSE ts_headline('english', substr(t.text, greatest(1, w.first - 120), least(w.last - w.first, 800) + 300), coalesce(q.spread, q.words), ${HEADLINE}) END AS near OFFSET 0) h)`;

// The query terms come from a CTE on purpose: the planner cannot see them, so it keeps to the GIN indexes.
// Written out inline, statistics that say "this word is in every document" made it scan and detoast
// every 10,000-character vector (docs/ingestion.md, "Measured choices").
//
// First pass, in a cheap order the indexes give: documents whose opening holds the words, then those that
// hold them in their first 10,000 characters, then names (words or part of a word); only when those do not
// fill the page, documents that match only past their first 10,000 characters, and then names that merely
// look alike. Each takes at most $6 documents. The second pass ranks those exactly. A way read for some pages
// only ranks after every way read before it, so the pages before its documents are the same whether it was
// read or not, and paging never repeats or skips a hit. A document found only past its opening takes no text
// rank (its opening may hold a phrase's words apart, which ts_rank scores) and comes after the openings and
// names: it is read only when the openings found do not reach the page's end (a common word in one data
// source: a GIN scan of the whole project's 10,000-character vectors saved). Those found deeper come after
// all of these, and look-alike names last.
// `found` says where a document was found (1 opening, 2 first 10,000 characters, 3 name, 4 deeper); it
// chooses the text the snippet is cut from.
const searchSql = (inSources: (alias: string) => string, path: string) => `
WITH q AS (
  SELECT words, names, lower($2) AS raw, ${LITERALLY('lower($2)')} AS literal,
    ${NEGATED('words')} AS unwanted, ${NEGATED('names')} AS unwanted_names,
    ARRAY(SELECT ' ' || replace(m[1], '''''', '''') FROM regexp_matches(words::text, '''((?:[^'']|'''')+)''', 'g') m) AS stems,
    -- Any one of the words, for a snippet's marks; none for one word or a phrase (its words belong together).
    CASE WHEN numnode(words) > 1 AND strpos(words::text, '<') = 0 THEN
      (SELECT string_agg(quote_literal(replace(m[1], '''''', '''')), ' | ')
       FROM regexp_matches(words::text, '''((?:[^'']|'''')+)''', 'g') m)::tsquery
    END AS spread,
    -- A phrase as it was typed, for where its snippet is cut: its words' first places are often apart.
    CASE WHEN strpos(words::text, '<') > 0 THEN
      ' ' || regexp_replace((regexp_match(lower($2), '"\\s*([^"]*[^"\\s])'))[1], '\\s+', ' ', 'g')
    END AS phrase
  FROM (SELECT websearch_to_tsquery('english', $2) AS words, websearch_to_tsquery('simple', $2) AS names) w
),
opening AS MATERIALIZED (${WANTED_OF(`
  SELECT ${FOUND}, ${VECTORS} FROM connector.documents d, q
  WHERE ${inSources('d')} AND d."openingSearch" @@ q.words AND ${path}
  LIMIT $6::int`)}
),
body AS MATERIALIZED (${WANTED_OF(`
  SELECT ${FOUND_DEEPER}, ${VECTORS} FROM connector.documents d, q
  WHERE (SELECT count(*) FROM opening) < $4::int + $5::int
    AND ${inSources('d')} AND d.search @@ q.words AND ${path}
  LIMIT $6::int`)}
),
named AS MATERIALIZED (${WANTED_OF(`
  SELECT ${FOUND_BY_NAME}, ${VECTORS} FROM connector.documents d, q
  WHERE ${inSources('d')} AND (d."nameSearch" @@ q.names OR lower(d.name) LIKE '%' || q.literal || '%')
    AND ${path}
  LIMIT $6::int`)}
),
-- A document's score is its opening's text rank plus, when its name matched, its name rank. One found only
-- past its opening (\`deeper\`) comes after every other: those are read for some pages only, and an opening
-- may score 0 too (ts_rank of a negated word).
ranked AS (
  SELECT id, name, path, 0 AS tier, bool_and(found = 2) AS deeper, min(found) AS found,
    round((max(text_rank) + max(name_rank))::numeric, 6) AS score
  FROM (
    SELECT *, 1 AS found FROM opening UNION ALL SELECT *, 2 FROM body UNION ALL SELECT *, 3 FROM named
  ) c
  GROUP BY id, name, path
),
deep AS (
  SELECT d.id, d.name, d.path, 1 AS tier, false AS deeper, 4 AS found, round(h.rank::numeric, 6) AS score
  FROM (
    SELECT f.id AS "documentId", max(ts_rank_cd(f.chunk, q.words)) AS rank
    FROM (
      SELECT c.search AS chunk, d.id, ${VECTORS}
      FROM connector.document_chunks c JOIN connector.documents d ON d.id = c."documentId", q
      WHERE (SELECT count(*) FROM ranked) < $4::int + $5::int
        AND ${inSources('c')} AND c.index >= 8 AND c.search @@ q.words AND ${path}
      LIMIT $6::int
    ) f, q
    WHERE ${WANTED}
    GROUP BY f.id
  ) h JOIN connector.documents d ON d.id = h."documentId"
  WHERE NOT EXISTS (SELECT 1 FROM ranked r WHERE r.id = d.id)
),
-- Read only when the documents found otherwise (each once) do not reach the page's end; ranked after them all.
look_alike AS (
  SELECT id, name, path, 2 AS tier, false AS deeper, 3 AS found, round((text_rank + name_rank)::numeric, 6) AS score
  FROM (${WANTED_OF(`
    SELECT ${FOUND_BY_NAME}, ${VECTORS} FROM connector.documents d, q
    WHERE (SELECT count(*) FROM ranked) + (SELECT count(*) FROM deep) < $4::int + $5::int
      AND ${inSources('d')} AND lower(d.name) % q.raw AND ${path}
      AND NOT EXISTS (SELECT 1 FROM ranked r WHERE r.id = d.id) AND NOT EXISTS (SELECT 1 FROM deep e WHERE e.id = d.id)
    LIMIT $6::int`)}
  ) a
),
page AS (
  SELECT *, row_number() OVER (ORDER BY tier, deeper, score DESC, name, id) AS n FROM (
    SELECT * FROM (SELECT * FROM ranked UNION ALL SELECT * FROM deep UNION ALL SELECT * FROM look_alike) hits
    ORDER BY tier, deeper, score DESC, name, id
    LIMIT $4::int OFFSET $5::int
  ) p
)
-- The last of $4 rows only tells that another page follows: it gets no snippet.
SELECT d.id AS "documentId", d."dataSourceId", d.name, d.path, d."mimeType", p.score,
  CASE WHEN p.n = $4::int THEN NULL ELSE CASE p.found
    WHEN 1 THEN ${SNIPPET_FROM('substr(d.text, 1, 2000)')}
    WHEN 2 THEN ${SNIPPET_FROM('substr(d.text, 1, 10000)')}
    WHEN 4 THEN (
      SELECT ts_headline('english', c.text, q.words, ${HEADLINE})
      FROM connector.document_chunks c
      WHERE c."documentId" = d.id AND c.index >= 8 AND c.search @@ q.words
      ORDER BY c.index LIMIT 1)
    ELSE left(d.text, 200)
  END END AS snippet
FROM page p JOIN connector.documents d ON d.id = p.id CROSS JOIN q
ORDER BY p.n`;

/**
 * The data-source filter as an index condition: a few data sources' documents are read through their index
 * together with the words' (a bitmap AND).
 */
const IN_FEW_SOURCES = (alias: string) => `${alias}."dataSourceId" = ANY($1::uuid[])`;
/**
 * The data-source filter as a plain filter (`IS TRUE` is no index condition): for most of the project, reading
 * the data-source index would cost more than the few rows the filter drops.
 */
const IN_MOST_OF_PROJECT = (alias: string) => `(${alias}."dataSourceId" = ANY($1::uuid[])) IS TRUE`;

/** The four named statements: for most of the project or a few data sources, with or without a path prefix. */
const STATEMENTS = {
  project: {
    all: { name: 'connector-search-project', text: searchSql(IN_MOST_OF_PROJECT, PATH_MATCHES) },
    under: { name: 'connector-search-project-path', text: searchSql(IN_MOST_OF_PROJECT, PATH_WITHIN) },
  },
  sources: {
    all: { name: 'connector-search-sources', text: searchSql(IN_FEW_SOURCES, PATH_MATCHES) },
    under: { name: 'connector-search-sources-path', text: searchSql(IN_FEW_SOURCES, PATH_WITHIN) },
  },
};
