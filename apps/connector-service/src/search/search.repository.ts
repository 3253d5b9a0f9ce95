import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { SearchHitView } from '@app/contracts';

/** A hit as the search statement returns it, ranked; the service adds the links. */
export type SearchRow = Omit<SearchHitView, 'score' | 'textUrl' | 'contentUrl'> & {
  /** A numeric, as PostgreSQL returns it. */
  score: number | string;
};

export interface SearchTerms {
  dataSourceIds: string[];
  q: string;
  pathPrefix: string | null;
  limit: number;
  offset: number;
}

/** The search statement over documents and their chunks. */
@Injectable()
export class SearchRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Up to `limit` hits after the first `offset`, best first. */
  search(terms: SearchTerms): Promise<SearchRow[]> {
    return this.prepared<SearchRow>(SEARCH_STATEMENT, SEARCH_SQL, [
      terms.dataSourceIds,
      terms.q,
      terms.pathPrefix,
      terms.limit,
      terms.offset,
    ]);
  }

  /**
   * Runs a statement as a named prepared statement: each pooled connection parses it once and PostgreSQL
   * may keep its plan, instead of planning a long query on every call (several ms of a search's budget).
   * `name` must be unique per statement text.
   */
  private async prepared<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const runner = this.db.createQueryRunner();
    try {
      const client = (await runner.connect()) as PoolClient;
      const result = await client.query({ name, text, values });
      return result.rows as T[];
    } finally {
      await runner.release();
    }
  }
}

const SEARCH_STATEMENT = 'connector-search';

// The query terms come from a CTE on purpose: the planner cannot see them, so it keeps to the GIN indexes.
// Written out inline, statistics that say "this word is in every document" made it scan and detoast
// every 10,000-character vector (docs/ingestion.md, "Measured choices").
const SEARCH_SQL = `
WITH q AS (
  SELECT websearch_to_tsquery('english', $2) AS words, websearch_to_tsquery('simple', $2) AS names, lower($2) AS raw
),
-- Only the best text hits can make the page: a document's score is its text rank plus its name rank
-- (never negative), so any other text hit ranks below all of these unless its name matches too, and
-- every name match is taken below. This keeps a word found in every document from grouping them all.
text_hits AS (
  SELECT id, name, path, rank FROM (
    SELECT d.id, d.name, d.path, round(ts_rank(d."openingSearch", q.words)::numeric, 6) AS rank
    FROM connector.documents d, q
    WHERE d."dataSourceId" = ANY($1::uuid[]) AND d.search @@ q.words
  ) hits
  WHERE $3::text IS NULL OR path LIKE replace(replace(replace($3, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
  ORDER BY rank DESC, name, id
  LIMIT $4::int + $5::int
),
first_pages AS (
  SELECT id, name, path, true AS in_text, rank::real AS text_rank, 0::real AS name_rank FROM text_hits
  UNION ALL
  SELECT d.id, d.name, d.path, false, 0, ts_rank(d."nameSearch", q.names) + similarity(lower(d.name), q.raw)
  FROM connector.documents d, q
  WHERE d."dataSourceId" = ANY($1::uuid[])
    AND (d."nameSearch" @@ q.names OR lower(d.name) LIKE '%' || q.raw || '%' OR lower(d.name) % q.raw)
),
ranked AS (
  SELECT id, name, path, 0 AS tier, bool_or(in_text) AS in_text, round((max(text_rank) + max(name_rank))::numeric, 6) AS score
  FROM first_pages GROUP BY id, name, path
),
-- Documents that match only past their first pages rank after all others, so they are looked for only
-- when the others do not fill the page (a common word never pays for scanning every chunk).
deep AS (
  SELECT d.id, d.name, d.path, 1 AS tier, true AS in_text, round(h.rank::numeric, 6) AS score
  FROM (
    SELECT c."documentId", max(ts_rank_cd(c.search, q.words)) AS rank
    FROM connector.document_chunks c, q
    WHERE c."dataSourceId" = ANY($1::uuid[]) AND c.index >= 8 AND c.search @@ q.words
    GROUP BY c."documentId"
  ) h JOIN connector.documents d ON d.id = h."documentId"
  WHERE (SELECT count(*) FROM ranked) < $4::int + $5::int AND NOT EXISTS (SELECT 1 FROM ranked r WHERE r.id = d.id)
),
page AS (
  SELECT * FROM (SELECT * FROM ranked UNION ALL SELECT * FROM deep) hits
  WHERE $3::text IS NULL OR path LIKE replace(replace(replace($3, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
  ORDER BY tier, score DESC, name, id
  LIMIT $4::int OFFSET $5::int
)
SELECT d.id AS "documentId", d."dataSourceId", d.name, d.path, d."mimeType", p.score,
  COALESCE(
    CASE WHEN p.in_text THEN (
      SELECT ts_headline('english', c.text, q.words, 'StartSel=<mark>, StopSel=</mark>, MaxFragments=2, MaxWords=30, MinWords=12, FragmentDelimiter=" … "')
      -- In chunk order, computing vectors the table does not store only until the first match.
      FROM (SELECT text, search FROM connector.document_chunks WHERE "documentId" = d.id ORDER BY index LIMIT 100000) c
      WHERE COALESCE(c.search, to_tsvector('english', c.text)) @@ q.words
      LIMIT 1
    ) END,
    left(d.text, 200)) AS snippet
FROM page p JOIN connector.documents d ON d.id = p.id CROSS JOIN q
ORDER BY p.tier, p.score DESC, p.name, p.id`;
