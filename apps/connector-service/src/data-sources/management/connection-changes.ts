import { Injectable, OnModuleInit } from '@nestjs/common';
import { Transactions } from '@app/database';
import { ConnectionEvent, ConnectionEvents, ConnectionListener } from '../../connections/connection-events';
import { DataSourceEntity } from '../data-source.entity';
import { DataSourcesRepository } from '../data-sources.repository';
import { SelectionReset } from '../selection/selection-reset';

/** What happens to data sources when the OAuth connection they use changes state. */
@Injectable()
export class ConnectionChanges implements ConnectionListener, OnModuleInit {
  constructor(
    private readonly events: ConnectionEvents,
    private readonly repository: DataSourcesRepository,
    private readonly transactions: Transactions,
    private readonly selection: SelectionReset,
  ) {}

  onModuleInit(): void {
    this.events.listen(this);
  }

  async onConnectionChange(event: ConnectionEvent): Promise<void> {
    if (event.type === 'NeedsReauth') await this.needsReauth(event.connectionId);
    else await this.reauthorized(event.connectionId, event.subject);
  }

  /** The connection's refresh failed: its data sources show NeedsReauth. */
  private async needsReauth(connectionId: string): Promise<void> {
    await this.repository.markNeedsReauthForConnection(connectionId);
  }

  /**
   * The user authorized again. Data sources waiting for it may sync again; a selection made as another
   * document-system identity is discarded (its folders mean nothing for this one).
   */
  private async reauthorized(connectionId: string, subject: string | null): Promise<void> {
    for (const source of await this.repository.usingConnection(connectionId)) {
      const discarded = identityChanged(source, subject);
      await this.transactions.run(async (transaction) => {
        if (discarded) await this.selection.discard(transaction, source.id);
        // Back to where its last completed run left it: its documents are still there.
        else if (source.ingestionStatus === 'NeedsReauth') await this.repository.reauthorized(source.id, transaction);
      });
      // The other identity's documents go with its selection.
      if (discarded) await this.selection.settle(source.id);
    }
  }
}

function identityChanged(source: DataSourceEntity, subject: string | null): boolean {
  return source.selectionSubject !== null && subject !== null && source.selectionSubject !== subject;
}
