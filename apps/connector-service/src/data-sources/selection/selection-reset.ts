import { Injectable } from '@nestjs/common';
import { Transaction } from '@app/database';
import { ContentsClearingRepository } from '../contents-clearing.repository';
import { DataSourcesRepository } from '../data-sources.repository';
import { FolderLocator } from '../folders/folder-locator';
import { EmptiedSelections } from './emptied-selections';

/**
 * Drops a data source's selection (credential changed, or another document-system identity authorized).
 * Needs no document-system session, so a connection change can use it without opening one.
 */
@Injectable()
export class SelectionReset {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly clearing: ContentsClearingRepository,
    private readonly locator: FolderLocator,
    private readonly emptied: EmptiedSelections,
  ) {}

  /**
   * What the former login ingested goes too (`settle`, after the commit), even once a selection of the new login is
   * saved in the same change or before it is removed: until then the data source starts no run.
   */
  async discard(transaction: Transaction, dataSourceId: string): Promise<void> {
    await this.repository.saveSelection(transaction, dataSourceId, [], null);
    await this.repository.moveStatus(dataSourceId, 'NotConfigured', transaction);
    await this.clearing.loginChanged(transaction, dataSourceId);
    await this.locator.forget(dataSourceId);
  }

  /** After the commit of a change that left nothing selected, or discarded it: its run stops and its documents go. */
  settle(dataSourceId: string): Promise<void> {
    return this.emptied.settle(dataSourceId);
  }
}
