import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import type { SearchPageView } from '@app/contracts';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { MAX_SEARCH_OFFSET, SearchQueryDto } from './search.dto';
import { SearchRepository } from './search.repository';

/**
 * Full-text search over extracted text together with file-name and path matching that tolerates partial
 * words (pg_trgm), only in data sources the caller may read. Documents match on a vector of their first
 * 10,000 characters and are ranked on their opening 2,000 (cheap even when a word is in every document);
 * documents that match only further in (chunk vectors, their own index) come after those, and are looked
 * for only when the first ones do not fill the page. The snippet is the first matching chunk, highlighted.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly repository: SearchRepository,
  ) {}

  async search(principal: Principal, projectId: string, query: SearchQueryDto): Promise<SearchPageView> {
    let ids = await this.access.readableIds(principal, projectId);
    if (query.dataSourceId) ids = ids.filter((id) => id === query.dataSourceId);
    if (!ids.length) return { hits: [], nextCursor: null };
    const limit = query.limit ?? 20;
    const offset = Number(query.cursor ?? 0);
    const rows = await this.repository.search({
      dataSourceIds: ids,
      q: query.q,
      pathPrefix: query.pathPrefix ?? null,
      limit: limit + 1,
      offset,
    });
    const hits = rows.slice(0, limit).map((r) => ({
      ...r,
      score: Number(r.score),
      textUrl: `/v1/documents/${r.documentId}/text`,
      contentUrl: `/v1/documents/${r.documentId}/content`,
    }));
    const next = offset + limit;
    return { hits, nextCursor: rows.length > limit && next <= MAX_SEARCH_OFFSET ? String(next) : null };
  }
}
