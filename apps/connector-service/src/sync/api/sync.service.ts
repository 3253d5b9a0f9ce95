import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import { DataSourceAccess } from '../../data-sources/data-source-access';
import { SyncCompletion } from '../engine/sync-completion';
import { RunPaceSampler } from '../run-pace';
import { SyncRunAccess } from '../sync-run-access';
import { SyncRunsRepository } from '../sync-runs.repository';
import { SyncRunEntity } from '../sync-run.entity';
import { SyncStarter } from '../engine/sync-starter';
import { SyncErrorCode } from '../sync.exception';

@Injectable()
export class SyncService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly runs: SyncRunsRepository,
    private readonly starter: SyncStarter,
    private readonly completion: SyncCompletion,
    private readonly runAccess: SyncRunAccess,
    private readonly pace: RunPaceSampler,
  ) {}

  async start(principal: Principal, dataSourceId: string): Promise<SyncRunEntity> {
    return this.starter.start(await this.access.readable(principal, dataSourceId), principal.userId);
  }

  async list(principal: Principal, dataSourceId: string): Promise<SyncRunEntity[]> {
    await this.access.readable(principal, dataSourceId);
    return this.runs.latestOf(dataSourceId, 100);
  }

  async get(principal: Principal, id: string): Promise<SyncRunEntity> {
    return this.pace.sampled((await this.runAccess.readable(principal, id)).run);
  }

  /** Queued or Running → Cancelled; the data source returns to where it was before the run. */
  async cancel(principal: Principal, id: string): Promise<SyncRunEntity> {
    const run = await this.get(principal, id);
    if (run.status !== 'Queued' && run.status !== 'Running') {
      throw new DomainException(409, SyncErrorCode.NotActive, `The sync run has already ended (${run.status})`);
    }
    await this.completion.cancel(run.id);
    return this.runs.get(id);
  }
}
