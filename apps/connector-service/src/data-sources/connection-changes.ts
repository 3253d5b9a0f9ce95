import { Injectable } from '@nestjs/common';
import { SelectionReset } from '../selection/selection-reset';
import { DataSourceEntity } from './data-source.entity';
import { DataSourcesRepository } from './data-sources.repository';

/** What happens to data sources when the OAuth connection they use changes state. */
@Injectable()
export class ConnectionChanges {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly selection: SelectionReset,
  ) {}

  /** The connection's refresh failed: its data sources show NeedsReauth. */
  needsReauth(connectionId: string): Promise<number> {
    return this.repository.markNeedsReauthForConnection(connectionId);
  }

  /**
   * The user authorized again. Data sources waiting for it may sync again; a selection made as another
   * document-system identity is discarded (its folders mean nothing for this one).
   */
  async reauthorized(connectionId: string, subject: string | null): Promise<void> {
    const sources = await this.repository.sources.findBy({ connectionId });
    for (const source of sources) {
      await this.repository.transaction(async (manager) => {
        if (identityChanged(source, subject)) await this.selection.discard(source, manager);
        else if (source.ingestionStatus === 'NeedsReauth')
          await this.repository.moveStatus(source.id, 'Pending', manager);
      });
    }
  }
}

function identityChanged(source: DataSourceEntity, subject: string | null): boolean {
  return source.selectionSubject !== null && subject !== null && source.selectionSubject !== subject;
}
