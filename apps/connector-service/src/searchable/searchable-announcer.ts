import { Injectable } from '@nestjs/common';
import { ConnectorEvent, dataSourceSearchable } from '../events/connector-event';
import { ConnectorEventsRepository } from '../events/connector-events.repository';
import { SearchableRepository, SearchableTransaction } from './searchable.repository';

/**
 * Records DataSourceSearchable in the outbox, in the transaction that leaves the data source with nothing pending:
 * the one that ends a run, or the one that saves the last pending extraction result. The caller publishes the
 * returned event through the relay after its commit.
 */
@Injectable()
export class SearchableAnnouncer {
  constructor(
    private readonly runs: SearchableRepository,
    private readonly outbox: ConnectorEventsRepository,
  ) {}

  /** At the end of `syncRunId`, in its ending transaction. */
  atRunEnd(manager: SearchableTransaction, dataSourceId: string, syncRunId: string): Promise<ConnectorEvent | null> {
    return this.announce(manager, dataSourceId, syncRunId);
  }

  /** After an extraction result of the data source was saved in `manager`: for its last ended run. */
  afterExtraction(manager: SearchableTransaction, dataSourceId: string): Promise<ConnectorEvent | null> {
    return this.announce(manager, dataSourceId, null);
  }

  private async announce(
    manager: SearchableTransaction,
    dataSourceId: string,
    syncRunId: string | null,
  ): Promise<ConnectorEvent | null> {
    const run = await this.runs.claim(manager, dataSourceId, syncRunId);
    if (!run) return null;
    const event = dataSourceSearchable({ type: 'DataSourceSearchable', dataSourceId, ...run });
    await this.outbox.record(manager, event);
    return event;
  }
}
