import { Injectable } from '@nestjs/common';
import { Transaction } from '@app/database';
import { ConnectorEvent, dataSourceSearchable } from '../events/connector-event';
import { ConnectorEventsRepository } from '../events/connector-events.repository';
import { SearchableRepository } from './searchable.repository';

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

  /**
   * At the end of `syncRunId`, in its ending transaction: claimed but not recorded, for the caller to record after
   * its SyncCompleted, which the runtime takes first.
   */
  async atRunEnd(transaction: Transaction, dataSourceId: string, syncRunId: string): Promise<ConnectorEvent | null> {
    const run = await this.runs.claim(transaction, dataSourceId, syncRunId);
    return run && dataSourceSearchable({ type: 'DataSourceSearchable', dataSourceId, ...run });
  }

  /** After an extraction result of the data source was saved in `transaction`: for its last ended run; recorded. */
  afterExtraction(transaction: Transaction, dataSourceId: string): Promise<ConnectorEvent | null> {
    return this.announce(transaction, dataSourceId, null);
  }

  private async announce(transaction: Transaction, dataSourceId: string, syncRunId: string | null) {
    const run = await this.runs.claim(transaction, dataSourceId, syncRunId);
    if (!run) return null;
    const event = dataSourceSearchable({ type: 'DataSourceSearchable', dataSourceId, ...run });
    await this.outbox.record(transaction, event);
    return event;
  }
}
