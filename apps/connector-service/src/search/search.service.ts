import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Principal } from '@app/auth';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { SearchQueryDto } from './search.dto';

export interface SearchHit {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  snippet: string;
  score: number;
  mimeType: string;
  textUrl: string;
  contentUrl: string;
}

/**
 * Full-text search over extracted text (ranked chunks, highlighted snippets) together with file-name
 * and path matching that tolerates partial words (pg_trgm), only in data sources the caller may read.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly access: DataSourceAccess,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async search(principal: Principal, projectId: string, query: SearchQueryDto): Promise<{ hits: SearchHit[]; nextCursor: string | null }> {
    let ids = await this.access.readableIds(principal, projectId);
    if (query.dataSourceId) ids = ids.filter((id) => id === query.dataSourceId);
    if (!ids.length) return { hits: [], nextCursor: null };
    const limit = query.limit ?? 20;
    const offset = Number(query.cursor ?? 0);
    const rows: Array<Omit<SearchHit, 'textUrl' | 'contentUrl'>> = await this.db.query(SEARCH_SQL, [ids, query.q, query.pathPrefix ?? null, limit + 1, offset]);
    const hits = rows.slice(0, limit).map((r) => ({ ...r, score: Number(r.score), textUrl: `/v1/documents/${r.documentId}/text`, contentUrl: `/v1/documents/${r.documentId}/content` }));
    return { hits, nextCursor: rows.length > limit ? String(offset + limit) : null };
  }
}

const SEARCH_SQL = `
WITH q AS (
  SELECT websearch_to_tsquery('english', $2) AS words, websearch_to_tsquery('simple', $2) AS names, lower($2) AS raw
),
text_hits AS (
  SELECT DISTINCT ON (c."documentId") c."documentId", c.index, ts_rank_cd(c.search, q.words) AS rank
  FROM connector.document_chunks c, q
  WHERE c."dataSourceId" = ANY($1::uuid[]) AND c.search @@ q.words
  ORDER BY c."documentId", ts_rank_cd(c.search, q.words) DESC
),
name_hits AS (
  SELECT d.id AS "documentId", ts_rank(d."nameSearch", q.names) + similarity(lower(d.name), q.raw) AS rank
  FROM connector.documents d, q
  WHERE d."dataSourceId" = ANY($1::uuid[])
    AND (d."nameSearch" @@ q.names OR lower(d.name) LIKE '%' || q.raw || '%' OR lower(d.name) % q.raw)
),
hits AS (
  SELECT "documentId", max(text_rank) AS text_rank, max(name_rank) AS name_rank, max(chunk) AS chunk FROM (
    SELECT "documentId", rank AS text_rank, 0 AS name_rank, index AS chunk FROM text_hits
    UNION ALL
    SELECT "documentId", 0, rank, NULL FROM name_hits
  ) u GROUP BY "documentId"
)
SELECT d.id AS "documentId", d."dataSourceId", d.name, d.path, d."mimeType",
  round((h.text_rank + h.name_rank)::numeric, 6) AS score,
  CASE WHEN h.chunk IS NOT NULL
    THEN ts_headline('english', c.text, q.words, 'StartSel=<mark>, StopSel=</mark>, MaxFragments=2, MaxWords=30, MinWords=12, FragmentDelimiter=" … "')
    ELSE left(d.text, 200) END AS snippet
FROM hits h
JOIN connector.documents d ON d.id = h."documentId"
LEFT JOIN connector.document_chunks c ON c."documentId" = h."documentId" AND c.index = h.chunk
CROSS JOIN q
WHERE $3::text IS NULL OR d.path LIKE replace(replace(replace($3, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
ORDER BY score DESC, d.name, d.id
LIMIT $4 OFFSET $5`;
