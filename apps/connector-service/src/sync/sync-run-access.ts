import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { SyncErrorCode } from './sync.exception';
import { SyncRunEntity } from './sync-run.entity';
import { SyncRunsRepository } from './sync-runs.repository';

/** Who may see a sync run: the members of its data source and tenant admins; anyone else is told it does not exist. */
@Injectable()
export class SyncRunAccess {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly runs: SyncRunsRepository,
  ) {}

  /** The run and its data source; 404 SYNC_RUN_NOT_FOUND when there is no such run or the caller may not read it. */
  async readable(principal: Principal, syncRunId: string): Promise<{ run: SyncRunEntity; source: DataSourceEntity }> {
    const run = await this.runs.findInTenant(principal.tenantId, syncRunId);
    const source = run && (await this.access.readable(principal, run.dataSourceId).catch(hiddenAsNull));
    if (!run || !source) throw new DomainException(404, SyncErrorCode.RunNotFound, 'Sync run not found');
    return { run, source };
  }
}

/** A data source the caller may not read is a 404; any other failure (the database away) stays what it is. */
function hiddenAsNull(error: unknown): null {
  if (error instanceof DomainException && error.statusCode === 404) return null;
  throw error;
}
