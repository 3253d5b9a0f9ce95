import { Injectable } from '@nestjs/common';
import { SyncCompletedEvent } from '@app/contracts';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { IngestionStatus } from '../data-sources/ingestion-status';
import { DocumentsRepository } from '../documents/documents.repository';
import { UnreferencedBlobs } from '../documents/unreferenced-blobs';
import { ConnectorEvent, syncCompleted } from '../events/connector-event';
import { ConnectorEventRelay } from '../events/connector-event-relay';
import { ConnectorEventsRepository } from '../events/connector-events.repository';
import { ConnectorMetrics } from '../metrics/connector-metrics';
import { SyncRunEntity } from './sync-run.entity';
import { SearchableAnnouncer } from '../searchable/searchable-announcer';
import { outcomeOf, SyncRunStatus } from './sync-run-state';
import { RunTransaction, SyncRunsRepository } from './sync-runs.repository';

const INGESTION_AFTER: Record<'Succeeded' | 'PartiallySucceeded' | 'Failed', IngestionStatus> = {
  Succeeded: 'Synced',
  PartiallySucceeded: 'PartiallySynced',
  Failed: 'Failed',
};

/**
 * How runs end: when the last task is done (deleted files are dropped then, and only when every
 * folder was listed), when the authorization is lost, or when a user cancels. Exactly one caller wins
 * each ending; its SyncCompleted commits in the outbox with the ending, and is published after it.
 */
@Injectable()
export class SyncCompletion {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly documents: DocumentsRepository,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly outbox: ConnectorEventsRepository,
    private readonly relay: ConnectorEventRelay,
    private readonly metrics: ConnectorMetrics,
    private readonly searchable: SearchableAnnouncer,
  ) {}

  async finishIfDone(syncRunId: string): Promise<void> {
    if ((await this.runs.pendingTasks(syncRunId)) > 0) return;
    const ended = await this.runs.transaction(async (manager) => {
      const run = await this.runs.lock(manager, syncRunId);
      if (!run || run.status !== 'Running' || run.pendingTasks > 0) return null;
      const dropped =
        run.failedListings === 0 ? await this.documents.deleteUnseen(manager, run.dataSourceId, syncRunId) : [];
      await this.documents.forgetSightings(syncRunId, manager);
      if (dropped.length) await this.runs.settle(manager, syncRunId, { deleted: dropped.length });
      const outcome = outcomeOf(
        { ...run, deleted: run.deleted + dropped.length },
        run.failedListings,
      ) as keyof typeof INGESTION_AFTER;
      await this.runs.move(syncRunId, outcome, {
        manager,
        error: run.failedListings ? `${run.failedListings} folder listing(s) failed; deletions were not applied` : null,
      });
      await this.sources.moveStatus(run.dataSourceId, INGESTION_AFTER[outcome], manager);
      return { dropped, ...(await this.recordCompletion(manager, syncRunId)) };
    });
    if (!ended) return;
    if (ended.run) this.metrics.syncRunEnded(ended.run);
    if (ended.events.length) await this.relay.publish(...ended.events);
    await this.blobGarbage.collect(ended.dropped.filter((sha): sha is string => sha !== null));
  }

  /** Ends a run at once (authorization lost, or a user cancelled). */
  async abort(
    syncRunId: string,
    dataSourceStatus: IngestionStatus,
    error: string,
    runStatus: SyncRunStatus = 'Failed',
  ): Promise<void> {
    const ended = await this.runs.transaction(async (manager) => {
      const run = await this.runs.find(syncRunId, manager);
      if (!run || !(await this.runs.move(syncRunId, runStatus, { error, manager }))) return null;
      await this.documents.forgetSightings(syncRunId, manager);
      await this.sources.moveStatus(run.dataSourceId, dataSourceStatus, manager);
      return this.recordCompletion(manager, syncRunId);
    });
    if (ended?.run) this.metrics.syncRunEnded(ended.run);
    if (ended?.events.length) await this.relay.publish(...ended.events);
  }

  /**
   * Writes the ended run's SyncCompleted to the outbox, in the transaction that ends it, and its DataSourceSearchable
   * when no text extraction of the data source is pending (else the last extraction to end writes it). Returns the
   * run as it ended and the events to publish after the commit.
   */
  private async recordCompletion(
    manager: RunTransaction,
    syncRunId: string,
  ): Promise<{ run: SyncRunEntity | null; events: ConnectorEvent[] }> {
    const run = await this.runs.find(syncRunId, manager);
    const source = run && (await this.sources.find(run.dataSourceId));
    if (!run || !source) return { run, events: [] };
    const searchable = await this.searchable.atRunEnd(manager, run.dataSourceId, syncRunId);
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
      pendingExtractions: searchable ? 0 : await this.documents.countPendingExtractions(run.dataSourceId, manager),
    });
    await this.outbox.record(manager, event);
    return { run, events: searchable ? [event, searchable] : [event] };
  }
}
