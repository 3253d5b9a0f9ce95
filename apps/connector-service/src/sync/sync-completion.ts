import { Injectable } from '@nestjs/common';
import { EndedSyncRunStatus } from '@app/contracts/views';
import { SyncCompletedEvent } from '@app/contracts/payloads';
import { Transaction, Transactions } from '@app/database';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { IngestionStatus } from '../data-sources/ingestion-status';
import { DocumentsRepository } from '../documents/documents.repository';
import { SyncedDocumentsRepository } from '../documents/synced-documents.repository';
import { UnreferencedBlobs } from '../documents/unreferenced-blobs';
import { ConnectorEvent, syncCompleted } from '../events/connector-event';
import { ConnectorEventRelay } from '../events/connector-event-relay';
import { ConnectorEventsRepository } from '../events/connector-events.repository';
import { FileLedgerRepository } from '../file-ledger/file-ledger.repository';
import { ConnectorMetrics } from '../metrics/connector-metrics';
import { deletedOutcomes } from './file-outcomes';
import { SyncRunEntity } from './sync-run.entity';
import { SearchableAnnouncer } from '../searchable/searchable-announcer';
import { COUNT_NAMES, outcomeOf, SyncRunStatus } from './sync-run-state';
import { DeletionGuard, GuardedDeletions } from './deletion-guard';
import { RunListingRepository } from './run-listing.repository';
import { SyncRunsRepository } from './sync-runs.repository';

const INGESTION_AFTER: Record<Exclude<EndedSyncRunStatus, 'Cancelled'>, IngestionStatus> = {
  Succeeded: 'Synced',
  PartiallySucceeded: 'PartiallySynced',
  Failed: 'Failed',
};

/**
 * How runs end: when the last task is done (deleted files are dropped then, only when every folder
 * was listed, and unless the deletion guard holds them), when the authorization is lost, or when a
 * user cancels. Exactly one caller wins each ending; its SyncCompleted commits in the outbox with the
 * ending, and is published after it.
 */
@Injectable()
export class SyncCompletion {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly transactions: Transactions,
    private readonly sources: DataSourcesRepository,
    private readonly documents: DocumentsRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly outbox: ConnectorEventsRepository,
    private readonly relay: ConnectorEventRelay,
    private readonly metrics: ConnectorMetrics,
    private readonly searchable: SearchableAnnouncer,
    private readonly ledger: FileLedgerRepository,
    private readonly guard: DeletionGuard,
    private readonly listing: RunListingRepository,
  ) {}

  async finishIfDone(syncRunId: string): Promise<void> {
    if ((await this.runs.pendingTasks(syncRunId)) > 0) return;
    // Every listing is done: stamped here too should its own stamp have been lost with its process.
    await this.listing.stampIfListed(syncRunId);
    const ended = await this.transactions.run(async (transaction) => {
      const run = await this.runs.lock(transaction, syncRunId);
      if (!run || run.status !== 'Running' || run.pendingTasks > 0) return null;
      const guarded =
        run.failedListings === 0 ? await this.guard.dropUnseen(transaction, run.dataSourceId, syncRunId) : UNGUARDED;
      const dropped = guarded.dropped;
      await this.synced.forgetSightings(transaction, syncRunId);
      await this.ledger.record(transaction, run.dataSourceId, syncRunId, deletedOutcomes(dropped));
      if (dropped.length) await this.runs.settle(transaction, syncRunId, { deleted: dropped.length });
      const outcome = withHeld(
        outcomeOf({ ...run, deleted: run.deleted + dropped.length }, run.failedListings),
        guarded.held,
      ) as keyof typeof INGESTION_AFTER;
      await this.runs.move(syncRunId, outcome, {
        transaction,
        error: run.failedListings
          ? `${run.failedListings} folder listing(s) failed; deletions were not applied`
          : guarded.reason,
      });
      await this.sources.moveStatus(run.dataSourceId, INGESTION_AFTER[outcome], transaction);
      return { dropped, ...(await this.recordCompletion(transaction, syncRunId)) };
    });
    if (!ended) return;
    if (ended.run) this.metrics.syncRunEnded(endedRun(ended.run));
    if (ended.events.length) await this.relay.publish(...ended.events);
    await this.blobGarbage.collect(ended.dropped.flatMap((d) => (d.contentSha256 ? [d.contentSha256] : [])));
  }

  /** Ends a run at once (authorization lost, or a user cancelled). */
  async abort(
    syncRunId: string,
    dataSourceStatus: IngestionStatus,
    error: string,
    runStatus: SyncRunStatus = 'Failed',
  ): Promise<void> {
    const ended = await this.transactions.run(async (transaction) => {
      const run = await this.runs.find(syncRunId, transaction);
      if (!run || !(await this.runs.move(syncRunId, runStatus, { error, transaction }))) return null;
      await this.synced.forgetSightings(transaction, syncRunId);
      await this.sources.moveStatus(run.dataSourceId, dataSourceStatus, transaction);
      return this.recordCompletion(transaction, syncRunId);
    });
    if (ended?.run) this.metrics.syncRunEnded(endedRun(ended.run));
    if (ended?.events.length) await this.relay.publish(...ended.events);
  }

  /**
   * Writes the ended run's SyncCompleted to the outbox, in the transaction that ends it, and its DataSourceSearchable
   * when no text extraction of the data source is pending (else the last extraction to end writes it). Returns the
   * run as it ended and the events to publish after the commit.
   */
  private async recordCompletion(
    transaction: Transaction,
    syncRunId: string,
  ): Promise<{ run: SyncRunEntity | null; events: ConnectorEvent[] }> {
    const run = await this.runs.find(syncRunId, transaction);
    const source = run && (await this.sources.find(run.dataSourceId));
    if (!run || !source) return { run, events: [] };
    const searchable = await this.searchable.atRunEnd(transaction, run.dataSourceId, syncRunId);
    const event = syncCompleted({
      type: 'SyncCompleted',
      tenantId: run.tenantId,
      projectId: source.projectId,
      dataSourceId: run.dataSourceId,
      syncRunId,
      status: run.status as SyncCompletedEvent['status'],
      counts: {
        discovered: run.discovered,
        added: run.added,
        updated: run.updated,
        unchanged: run.unchanged,
        deleted: run.deleted,
        failed: run.failed,
        skipped: run.skipped,
      },
      pendingExtractions: searchable ? 0 : await this.documents.countPendingExtractions(run.dataSourceId, transaction),
    });
    await this.outbox.record(transaction, event);
    return { run, events: searchable ? [event, searchable] : [event] };
  }
}

const UNGUARDED: GuardedDeletions = { dropped: [], held: 0, reason: null };

/** A run that holds deletions has not done all it should: it cannot have Succeeded. */
function withHeld(outcome: SyncRunStatus, held: number): SyncRunStatus {
  return held > 0 && outcome === 'Succeeded' ? 'PartiallySucceeded' : outcome;
}

/** The ended run as the metrics count it: every count but `discovered` is a file result. */
function endedRun(run: SyncRunEntity) {
  const files = Object.fromEntries(COUNT_NAMES.filter((name) => name !== 'discovered').map((n) => [n, run[n]]));
  return { status: run.status, files, bytesDownloaded: run.bytesDownloaded };
}
