import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import type { PassagesView } from '@app/contracts/views';
import { DataSourceAccess } from '../../data-sources/data-source-access';
import { SearchSlots } from '../search-slots';
import { withinChars } from './passage-budget';
import { PASSAGES_DEFAULT_LIMIT, PASSAGES_DEFAULT_MAX_CHARS, PassagesQueryDto } from './passages.dto';
import { PassagesRepository } from './passages.repository';

/**
 * The best-matching chunks of the documents a caller may read, with where they lie in their document's
 * text and, for a PDF, the page: what an agent quotes and cites. Same access rules, slots (taking turns
 * between tenants) and statement timeout as search.
 */
@Injectable()
export class PassagesService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly repository: PassagesRepository,
    private readonly slots: SearchSlots,
  ) {}

  async passages(
    principal: Principal,
    projectId: string,
    query: PassagesQueryDto,
    abandoned?: AbortSignal,
  ): Promise<PassagesView> {
    const rows = await this.slots.run(
      principal.tenantId,
      async () => {
        // Read once the search has its turn: a member removed while it waited finds nothing.
        const scope = await this.access.searchScope(principal, projectId, query.dataSourceId);
        if (!scope) return [];
        return this.repository.passages({
          dataSourceIds: scope.ids,
          q: query.q,
          pathPrefix: query.pathPrefix ?? null,
          limit: query.limit ?? PASSAGES_DEFAULT_LIMIT,
        });
      },
      abandoned,
    );
    const passages = rows.map((row) => ({ ...row, score: Number(row.score) }));
    return withinChars(passages, query.maxChars ?? PASSAGES_DEFAULT_MAX_CHARS);
  }
}
