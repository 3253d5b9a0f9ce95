import { Injectable } from '@nestjs/common';
import { isTenantAdmin, Principal } from '@app/auth';
import { OutageRider, Transactions } from '@app/database';
import { DomainException } from '@app/errors';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { deletedOutcomes } from '../engine/file-outcomes';
import { HeldDeletionsRepository } from '../engine/held-deletions.repository';
import { SyncRunAccess } from '../sync-run-access';

/** How long a confirmation may keep trying after a deadlock (or a database away) before it answers 503. */
const CONFIRM_RETRY_MS = 10_000;

export enum DeletionGuardErrorCode {
  NothingHeld = 'NOTHING_HELD',
  ConfirmForbidden = 'DELETIONS_CONFIRM_FORBIDDEN',
}

/**
 * Applies the deletions a run held: documents, their text and chunks, folders the run did not see, and
 * blobs nothing references any more. The data source's creator or a tenant admin may (CONTRACT.md); other
 * members, the one who started the run among them, get 403, anyone else 404. Only the data source's latest
 * run can be confirmed.
 */
@Injectable()
export class ConfirmDeletionsService {
  constructor(
    private readonly runAccess: SyncRunAccess,
    private readonly held: HeldDeletionsRepository,
    private readonly transactions: Transactions,
    private readonly outages: OutageRider,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly ledger: FileLedgerRepository,
    private readonly sources: DataSourcesRepository,
  ) {}

  async confirm(principal: Principal, syncRunId: string): Promise<{ deleted: number }> {
    const { run, source } = await this.runAccess.readable(principal, syncRunId);
    if (source.createdBy !== principal.userId && !isTenantAdmin(principal)) {
      throw new DomainException(
        403,
        DeletionGuardErrorCode.ConfirmForbidden,
        "Only the data source's creator or a tenant admin may confirm its deletions",
      );
    }
    // A text saved meanwhile locks its document, then the run's row: the other order from this one, so
    // PostgreSQL may end this transaction as a deadlock's victim. It is all or nothing, and tried again.
    const dropped = await this.outages.ride(
      () =>
        this.transactions.run(async (transaction) => {
          await this.held.lockRunStarts(transaction, run.dataSourceId);
          const taken = await this.held.take(transaction, syncRunId);
          if (!taken) return null;
          const { dropped, status } = await this.held.apply(transaction, taken.dataSourceId, syncRunId);
          // Each held file's ledger row turns from Held to Deleted.
          await this.ledger.record(transaction, taken.dataSourceId, syncRunId, deletedOutcomes(dropped));
          // The data source's latest run (take makes sure) has Succeeded now: so has the data source.
          if (status === 'Succeeded') await this.sources.moveStatus(taken.dataSourceId, 'Synced', transaction);
          return dropped;
        }),
      CONFIRM_RETRY_MS,
    );
    if (!dropped) {
      throw new DomainException(
        409,
        DeletionGuardErrorCode.NothingHeld,
        'This run holds no deletions: none were held, they were confirmed already, or a later run has replaced them',
      );
    }
    await this.blobGarbage.collect(dropped.flatMap((d) => (d.contentSha256 ? [d.contentSha256] : [])));
    return { deleted: dropped.length };
  }
}
