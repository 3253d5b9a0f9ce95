import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import type { SearchPageView } from '@app/contracts/views';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { MAX_SEARCH_LIMIT, MAX_SEARCH_OFFSET, SearchQueryDto } from './search.dto';
import { SearchRepository } from './search.repository';
import { SearchSlots } from './search-slots';

/** Enough for the deepest page and the one hit past it that tells whether another page follows. */
const SEARCH_CANDIDATES = MAX_SEARCH_OFFSET + MAX_SEARCH_LIMIT + 1;

/**
 * Full-text search over extracted text together with file-name and path matching that tolerates partial
 * words (pg_trgm), only in data sources the caller may read. A first pass takes a bounded set of candidate
 * documents through indexes (those whose opening 2,000 characters hold the words, then their first 10,000,
 * then names); a second ranks those exactly on their opening. Documents that match only further in (chunk
 * vectors, their own index) come after those, looked for only when the first ones do not fill the page.
 * The snippet is the matching part, highlighted. The statements run a few at a time per process, taking
 * turns between tenants (SearchSlots).
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly repository: SearchRepository,
    private readonly slots: SearchSlots,
  ) {}

  async search(
    principal: Principal,
    projectId: string,
    query: SearchQueryDto,
    abandoned?: AbortSignal,
  ): Promise<SearchPageView> {
    const limit = query.limit ?? 20;
    const offset = Number(query.cursor ?? 0);
    const rows = await this.slots.run(
      principal.tenantId,
      async () => {
        // Read once the search has its turn: a member removed while it waited finds nothing.
        const scope = await this.access.searchScope(principal, projectId, query.dataSourceId);
        if (!scope) return [];
        return this.repository.search({
          dataSourceIds: scope.ids,
          q: query.q,
          // An empty prefix holds every path: no prefix at all, whose plan costs less.
          pathPrefix: query.pathPrefix || null,
          limit: limit + 1,
          offset,
          candidates: SEARCH_CANDIDATES,
          mostOfProject: scope.ids.length * 2 > scope.inProject,
        });
      },
      abandoned,
    );
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
