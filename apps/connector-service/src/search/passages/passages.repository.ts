import { Injectable } from '@nestjs/common';
import type { PassageView } from '@app/contracts/views';
import { SearchConnections } from '../search-connections';
import { PATH_MATCHES } from '../search.repository';

/** A passage as the statement returns it, best first; numerics as PostgreSQL returns them. */
export type PassageRow = Omit<PassageView, 'score'> & { score: number | string };

export interface PassageTerms {
  dataSourceIds: string[];
  q: string;
  pathPrefix: string | null;
  limit: number;
}

/** The most documents each way of finding them takes before the best are chosen (as search's first pass). */
export const PASSAGE_CANDIDATES = 200;
/** The deep chunks of a document found by its first 10,000 characters that are read, in order, for more passages. */
export const PASSAGE_DEEP_WINDOW = 32;
/** Chunks chosen for exact ranking beyond the page asked for, so a few that turn out not to match cost no passage. */
const SPARE_CHUNKS = 10;

/** The passages statement over documents and their chunks (docs/ingestion.md, "Passages and pages"). */
@Injectable()
export class PassagesRepository {
  constructor(private readonly connections: SearchConnections) {}

  /** Up to `limit` passages, best first. */
  passages(terms: PassageTerms): Promise<PassageRow[]> {
    return this.connections.query<PassageRow>({
      text: PASSAGES_SQL,
      values: [
        terms.dataSourceIds,
        terms.q,
        terms.pathPrefix,
        terms.limit,
        PASSAGE_CANDIDATES,
        PASSAGE_DEEP_WINDOW,
        terms.limit + SPARE_CHUNKS,
      ],
    });
  }
}

const IN_SOURCES = (alias: string) => `${alias}."dataSourceId" = ANY($1::uuid[])`;

// The query terms come from a CTE, as in search: the planner keeps to the GIN indexes (search.repository.ts).
//
// 1. Documents, through the indexes search uses: those whose opening (2,000 characters) holds the words,
//    ranked on it, then those whose first 10,000 characters do (they rank 0 and after any opening, so they
//    are read only when the openings found are fewer than $4); the best $4 of at most $5 each. Documents extracted before their
//    chunks kept their place (`openingChunks` null) are left out.
// 2. Their chunks: the first eight (ranges kept on the document, text cut from the document's opening by
//    UTF-8 byte offsets: substr would count the characters of the whole opening for each chunk)
//    and the next $6 stored ones that match. When those documents are fewer than $4, chunks past the
//    first 10,000 characters of other documents that match (their own index), at most $5.
// 3. Of those, the $7 that hold the most of the query's words (a word starting with a stem, by strpos:
//    no text is parsed for it), then the better document; then exactly, in that order until $4 match: a
//    chunk's vector (built here for the first eight, stored for the others) must match; those rank by
//    cover density.
const PASSAGES_SQL = `
WITH q AS (
  SELECT words,
    ARRAY(SELECT ' ' || replace(m[1], '''''', '''') FROM regexp_matches(words::text, '''((?:[^'']|'''')+)''', 'g') m) AS stems
  FROM (SELECT websearch_to_tsquery('english', $2) AS words) w
),
opening AS MATERIALIZED (
  SELECT d.id, ts_rank(d."openingSearch", q.words) AS rank, false AS deeper FROM connector.documents d, q
  WHERE ${IN_SOURCES('d')} AND d."openingSearch" @@ q.words AND ${PATH_MATCHES} AND d."openingChunks" IS NOT NULL
  LIMIT $5::int
),
body AS MATERIALIZED (
  SELECT d.id, 0::real AS rank, true AS deeper FROM connector.documents d, q
  WHERE (SELECT count(*) FROM opening) < $4::int
    AND ${IN_SOURCES('d')} AND d.search @@ q.words AND ${PATH_MATCHES} AND d."openingChunks" IS NOT NULL
  LIMIT $5::int
),
found AS MATERIALIZED (
  SELECT id, max(rank) AS rank FROM (SELECT * FROM opening UNION ALL SELECT * FROM body) f
  GROUP BY id ORDER BY max(rank) DESC, bool_and(deeper), id LIMIT $4::int
),
deep AS MATERIALIZED (
  SELECT c."documentId" AS id, c.index, c.start, c."end", c.text, c.search
  FROM connector.document_chunks c JOIN connector.documents d ON d.id = c."documentId", q
  WHERE (SELECT count(*) FROM found) < $4::int
    AND ${IN_SOURCES('c')} AND c.index >= 8 AND c.search @@ q.words AND c.start IS NOT NULL AND ${PATH_MATCHES}
    AND NOT EXISTS (SELECT 1 FROM found f WHERE f.id = c."documentId")
  LIMIT $5::int
),
chunks AS (
  SELECT f.id, f.rank, 0 AS tier, o.index, o.start, o."end", o.text, NULL::tsvector AS search
  FROM found f JOIN connector.documents d ON d.id = f.id
  CROSS JOIN LATERAL (
    SELECT d."openingChunks" AS ranges,
      convert_to(substr(d.text, 1, coalesce(d."openingChunks"[array_length(d."openingChunks", 1)][2], 0)), 'UTF8') AS opening
    OFFSET 0) t
  CROSS JOIN LATERAL (
    SELECT i - 1 AS index, t.ranges[i][1] AS start, t.ranges[i][2] AS "end",
      convert_from(substring(t.opening FROM t.ranges[i][3] + 1 FOR t.ranges[i][4] - t.ranges[i][3]), 'UTF8') AS text
    FROM generate_subscripts(t.ranges, 1) i) o
  UNION ALL
  SELECT f.id, f.rank, 0, c.index, c.start, c."end", c.text, c.search
  FROM found f CROSS JOIN LATERAL (
    SELECT c.index, c.start, c."end", c.text, c.search FROM connector.document_chunks c
    WHERE c."documentId" = f.id AND c.index >= 8 AND c.index < 8 + $6::int) c, q
  WHERE c.search @@ q.words
  UNION ALL
  SELECT id, 0::real, 1, index, start, "end", text, search FROM deep
),
picked AS MATERIALIZED (
  SELECT ch.*, h.hits
  FROM chunks ch, q,
  LATERAL (SELECT ' ' || replace(lower(ch.text), E'\\n', ' ') AS plain OFFSET 0) l,
  LATERAL (SELECT count(*) AS hits FROM unnest(q.stems) s WHERE strpos(l.plain, s) > 0) h
  WHERE h.hits > 0 OR ch.search IS NOT NULL
  ORDER BY h.hits DESC, ch.tier, ch.rank DESC, ch.id, ch.index
  LIMIT $7::int
),
-- Rows come out of a materialized CTE in the order they went in (picked's): the limit stops building vectors
-- once $4 chunks match, and those are ranked.
ranked AS (
  SELECT p.*, ts_rank_cd(v.vector, q.words) AS score
  FROM picked p, q, LATERAL (SELECT coalesce(p.search, to_tsvector('english', p.text)) AS vector OFFSET 0) v
  WHERE v.vector @@ q.words
  LIMIT $4::int
)
SELECT r.id AS "documentId", d."dataSourceId", d.name, d.path, r.text, r.start, r."end",
  width_bucket(r.start, d."pageStarts") AS page, round(r.score::numeric, 6) AS score
FROM ranked r JOIN connector.documents d ON d.id = r.id
ORDER BY r.score DESC, r.tier, r.rank DESC, r.id, r.index`;
