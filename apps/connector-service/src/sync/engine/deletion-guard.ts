import { Injectable } from '@nestjs/common';
import { excludedIds, syncRoots } from '@app/contracts/views';
import { Transaction } from '@app/database';
import { ConnectorEnv } from '../../connector-env';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { DroppedDocument, SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { holdReason } from './deletion-guard-rule';
import { deletedOutcomes, heldOutcomes } from './file-outcomes';
import { HeldDeletionsRepository } from './held-deletions.repository';

export interface GuardedDeletions {
  /** The documents deleted. */
  dropped: DroppedDocument[];
  held: number;
  /** Why the deletions are held; null when none are. */
  reason: string | null;
}

/**
 * At a run's end: drops what the run did not see (each in the run's file ledger), unless that is too much
 * (see holdReason); then drops what its creator deselected and holds the rest.
 */
@Injectable()
export class DeletionGuard {
  constructor(
    private readonly env: ConnectorEnv,
    private readonly sources: DataSourcesRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly held: HeldDeletionsRepository,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async dropUnseen(transaction: Transaction, dataSourceId: string, runId: string): Promise<GuardedDeletions> {
    const source = await this.sources.get(dataSourceId, transaction);
    const roots = syncRoots(source.selection).map((m) => m.folderId);
    const excluded = [...excludedIds(source.selection)];
    const tallies = await this.held.tally(transaction, dataSourceId, runId, roots, excluded);
    const reason = holdReason(tallies, this.env.DELETE_GUARD_PERCENT);
    const dropped = reason
      ? await this.held.dropDeselected(transaction, dataSourceId, runId, roots, excluded)
      : await this.synced.deleteUnseen(transaction, dataSourceId, runId);
    await this.ledger.record(transaction, dataSourceId, runId, deletedOutcomes(dropped));
    if (!reason) return { dropped, held: 0, reason: null };
    // The ledger lists each held file (outcome Held, and why) until the deletions are confirmed.
    const held = await this.held.hold(transaction, dataSourceId, runId);
    await this.ledger.record(transaction, dataSourceId, runId, heldOutcomes(held, reason.fileReason));
    return { dropped, held: held.length, reason: reason.error };
  }
}
