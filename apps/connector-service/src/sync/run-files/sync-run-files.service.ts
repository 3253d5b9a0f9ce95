import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import type { SyncRunFilesPageView } from '@app/contracts';
import { DomainException } from '@app/errors';
import { DataSourceAccess } from '../../data-sources/data-source-access';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { SyncErrorCode } from '../sync-starter';
import { SyncRunsRepository } from '../sync-runs.repository';
import { decodeRunFilesCursor, encodeRunFilesCursor } from './run-files-cursor';
import { RUN_FILES_PAGE_DEFAULT, SyncRunFilesQueryDto } from './sync-run-files.dto';

/** A run's file ledger, to the members of its data source (anyone else: 404, as for the run itself). */
@Injectable()
export class SyncRunFilesService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly runs: SyncRunsRepository,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async page(principal: Principal, syncRunId: string, query: SyncRunFilesQueryDto): Promise<SyncRunFilesPageView> {
    const run = await this.runs.findInTenant(principal.tenantId, syncRunId);
    const notFound = () => new DomainException(404, SyncErrorCode.RunNotFound, 'Sync run not found');
    if (!run) throw notFound();
    await this.access.readable(principal, run.dataSourceId).catch(() => {
      throw notFound();
    });
    const limit = query.limit ?? RUN_FILES_PAGE_DEFAULT;
    const after = query.cursor ? decodeRunFilesCursor(query.cursor) : null;
    const rows = await this.ledger.page(run.id, query.outcome ?? null, after, limit + 1);
    const items = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? encodeRunFilesCursor(items[items.length - 1].externalId) : null;
    return { items, nextCursor };
  }
}
