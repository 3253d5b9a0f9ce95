import { Injectable } from '@nestjs/common';
import { SyncCompletedEvent } from '@app/contracts/payloads';
import { Transaction } from '@app/database';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { DocumentsRepository } from '../../documents/documents.repository';
import { ConnectorEvent, syncCompleted } from '../../events/connector-event';
import { ConnectorEventRelay } from '../../events/connector-event-relay';
import { ConnectorEventsRepository } from '../../events/connector-events.repository';
import { ConnectorMetrics } from '../../metrics/connector-metrics';
import { SearchableAnnouncer } from '../../searchable/searchable-announcer';
import { SyncRunEntity } from '../sync-run.entity';
import { COUNT_NAMES } from '../sync-run-state';

/** A run as it ended, and the events its ending recorded. */
export interface EndedRun {
  run: SyncRunEntity;
  events: ConnectorEvent[];
}

/**
 * What others learn of a run's end: its SyncCompleted, in the outbox with the ending and published after it,
 * its DataSourceSearchable when no text extraction of the data source is pending (else the last extraction
 * to end records it), and the metrics.
 */
@Injectable()
export class EndedRunEvents {
  constructor(
    private readonly sources: DataSourcesRepository,
    private readonly searchable: SearchableAnnouncer,
    private readonly documents: DocumentsRepository,
    private readonly outbox: ConnectorEventsRepository,
    private readonly relay: ConnectorEventRelay,
    private readonly metrics: ConnectorMetrics,
  ) {}

  /** Records the ended run's events in the transaction that ends it. */
  async record(transaction: Transaction, run: SyncRunEntity): Promise<EndedRun> {
    const source = await this.sources.find(run.dataSourceId);
    if (!source) return { run, events: [] };
    const searchable = await this.searchable.atRunEnd(transaction, run.dataSourceId, run.id);
    const event = syncCompleted({
      type: 'SyncCompleted',
      tenantId: run.tenantId,
      projectId: source.projectId,
      dataSourceId: run.dataSourceId,
      syncRunId: run.id,
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
    if (searchable) await this.outbox.record(transaction, searchable);
    return { run, events: searchable ? [event, searchable] : [event] };
  }

  /** After the commit: the run counted, its events published. */
  async announce(ended: EndedRun | null): Promise<void> {
    if (!ended) return;
    this.metrics.syncRunEnded(endedRun(ended.run));
    if (ended.events.length) await this.relay.publish(...ended.events);
  }
}

/** The ended run as the metrics count it: every count but `discovered` is a file result. */
function endedRun(run: SyncRunEntity) {
  const files = Object.fromEntries(COUNT_NAMES.filter((name) => name !== 'discovered').map((n) => [n, run[n]]));
  return { status: run.status, files, bytesDownloaded: run.bytesDownloaded };
}
