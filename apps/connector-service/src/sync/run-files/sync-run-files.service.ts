import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import type { SyncRunFilesPageView } from '@app/contracts/views';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { SyncRunAccess } from '../sync-run-access';
import { decodeRunFilesCursor, encodeRunFilesCursor } from './run-files-cursor';
import { RUN_FILES_PAGE_DEFAULT, SyncRunFilesQueryDto } from './sync-run-files.dto';

/** A run's file ledger, to the members of its data source (anyone else: 404, as for the run itself). */
@Injectable()
export class SyncRunFilesService {
  constructor(
    private readonly runAccess: SyncRunAccess,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async page(principal: Principal, syncRunId: string, query: SyncRunFilesQueryDto): Promise<SyncRunFilesPageView> {
    const { run } = await this.runAccess.readable(principal, syncRunId);
    const limit = query.limit ?? RUN_FILES_PAGE_DEFAULT;
    const after = query.cursor ? decodeRunFilesCursor(query.cursor) : null;
    const rows = await this.ledger.page(run.id, query.outcome ?? null, after, limit + 1);
    const items = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? encodeRunFilesCursor(items[items.length - 1].externalId) : null;
    return { items, nextCursor };
  }
}
