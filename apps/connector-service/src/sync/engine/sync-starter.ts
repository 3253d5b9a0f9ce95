import { Injectable, Logger } from '@nestjs/common';
import { selectsSomething } from '../../data-sources/selects-something';
import { DomainException, isInfrastructureError } from '@app/errors';
import { addedWithin } from '@app/queue';
import { ContentsClearingRepository } from '../../data-sources/contents-clearing.repository';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { DataSourceException } from '../../data-sources/data-source.exception';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { instanceMoved } from '../../data-sources/instance-origin';
import { Transaction, Transactions } from '@app/database';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { DECISION_RELEASED } from './deletion-guard-rule';
import { HeldDeletionsRepository } from './held-deletions.repository';
import { SyncProducer } from './sync.producer';
import { SyncRunsRepository } from '../sync-runs.repository';
import { SyncRunEntity } from '../sync-run.entity';
import { SyncMode } from '../sync-run-state';
import { SyncErrorCode } from '../sync.exception';
import { failedWith, SqlState } from '../../common/sql-state';

const nothingSelected = () =>
  new DomainException(409, SyncErrorCode.NothingSelected, 'Nothing is selected: choose folders before syncing');

/** Creates a run (one at a time per data source) and queues its start. */
@Injectable()
export class SyncStarter {
  private readonly logger = new Logger(SyncStarter.name);

  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly clearing: ContentsClearingRepository,
    private readonly producer: SyncProducer,
    private readonly held: HeldDeletionsRepository,
    private readonly ledger: FileLedgerRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * A scheduled start: `claim` moves the schedule in the transaction that stores the run. Null when it finds the
   * schedule moved already (another sweep started it): no run is stored.
   */
  async startFor(dataSourceId: string, claim: ScheduleClaim): Promise<SyncRunEntity | null> {
    return this.start(await this.sources.get(dataSourceId), null, claim).catch((error: unknown) => {
      if (error instanceof ScheduleTaken) return null;
      throw error;
    });
  }

  /** The first run that succeeds is Full; every later one is Incremental. `startedBy`: the user, none when scheduled. */
  async start(
    source: DataSourceEntity,
    startedBy: string | null = null,
    claim?: ScheduleClaim,
  ): Promise<SyncRunEntity> {
    // CONTRACT.md: no run while the data source needs a new authorization, or its creator's confirmation of a moved credential.
    if (instanceMoved(source)) throw DataSourceException.instanceMoved();
    if (source.ingestionStatus === 'NeedsReauth' || (await this.sources.connectionLost(source.id)))
      throw DataSourceException.connectionNotActive();
    if (!selectsSomething(source.selection)) throw nothingSelected();
    await this.refuseWhileFormerLoginLeaves(source);
    const mode = (await this.runs.hasCompletedRun(source.id)) ? 'Incremental' : 'Full';
    const run = await this.create(source, mode, startedBy, claim);
    if (!run) throw await this.notCreated(source.id);
    await this.releaseEarlier(source.id, run.id);
    await this.queueStart(run);
    return run;
  }

  /**
   * What a former login ingested goes before the new login's first run: its removal right after the change failed (or
   * its process died). The start queues that removal as its tenant's job (the sweep would) and answers 409: a start,
   * scheduled ones in the sweep too, does no tenant's removal itself, and answers through a Redis outage.
   */
  private async refuseWhileFormerLoginLeaves(source: DataSourceEntity): Promise<void> {
    if (!(await this.clearing.formerLoginLeft(source.id))) return;
    // Redis is waited for only so long: the sweep queues the removal should this add not land.
    await addedWithin(this.producer.settleUnselected(source.id, source.tenantId)).catch((error: unknown) => {
      if (!isInfrastructureError(error)) throw error;
    });
    throw DataSourceException.formerLoginLeaving();
  }

  /**
   * Under a share lock of the data source's row while it may sync (it selects something, nothing of a former login
   * is left): a change before is seen (no run), one after waits for the run's commit, and its settling then cancels
   * the run. The run's row comes first, the data source's lock second, as a run's end takes them: the other way
   * round, a start waiting on the ending run's unique key held the row the end was about to move (a deadlock).
   */
  private async create(
    source: DataSourceEntity,
    mode: SyncMode,
    startedBy: string | null,
    claim?: ScheduleClaim,
  ): Promise<SyncRunEntity | null> {
    return this.transactions
      .run(async (transaction) => {
        const run = await this.runs.create(transaction, source.tenantId, source.id, mode, startedBy);
        if (run && claim && !(await claim(transaction))) throw new ScheduleTaken();
        if (run && !(await this.clearing.lockReadyToSync(transaction, source.id))) throw new NotReadyToSync();
        return run;
      })
      .catch((error: unknown) => {
        // Deleted meanwhile (its row's key checked by the insert): as when it may not sync, notCreated says why.
        if (error instanceof NotReadyToSync || failedWith(error, SqlState.ForeignKeyViolation)) return null;
        throw error;
      });
  }

  /**
   * Why no run was created: the data source was deleted or cleared meanwhile, what its former login ingested is still
   * there, or a run of it is active.
   */
  private async notCreated(dataSourceId: string): Promise<DomainException> {
    const now = await this.sources.find(dataSourceId);
    if (!now) return DataSourceException.notFound();
    if (!selectsSomething(now.selection)) return nothingSelected();
    if (await this.clearing.formerLoginLeft(dataSourceId)) return DataSourceException.formerLoginLeaving();
    const active = await this.runs.findActive(dataSourceId);
    return new DomainException(409, SyncErrorCode.InProgress, 'A sync of this data source is already in progress', [], {
      syncRunId: active?.id ?? null,
    });
  }

  /**
   * The run is stored, so it is answered even when Redis does not take its start job in time (a retry would only
   * get 409): the add still lands once Redis is back, and the sweep starts a Queued run whose start job was lost.
   */
  private async queueStart(run: SyncRunEntity): Promise<void> {
    try {
      await addedWithin(this.producer.startRun(run.id, run.tenantId));
    } catch (error) {
      if (!isInfrastructureError(error)) throw error;
      this.logger.warn(
        { syncRunId: run.id, error: (error as Error).message },
        'sync run stored, its start job not yet queued',
      );
    }
  }

  /** What earlier runs held is released: the new run decides afresh; their Held files say so. */
  private async releaseEarlier(dataSourceId: string, runId: string): Promise<void> {
    await this.transactions.run(async (transaction) => {
      const released = await this.held.releaseEarlier(transaction, dataSourceId, runId);
      await this.ledger.noteReleased(transaction, released, DECISION_RELEASED);
    });
  }
}

/** Moves a data source's due schedule in `transaction`; false when it is not due any more. */
export type ScheduleClaim = (transaction: Transaction) => Promise<boolean>;

/** Rolls back a run created for a data source that, once locked, may not sync. */
class NotReadyToSync extends Error {}

/** Rolls back a scheduled run whose schedule another sweep moved (and started) meanwhile. */
class ScheduleTaken extends Error {}
