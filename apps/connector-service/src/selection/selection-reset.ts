import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { FolderLocator } from '../folders/folder-locator';

/**
 * Drops a data source's selection (credential changed, or another document-system identity authorized).
 * Needs no document-system session, so the OAuth side can use it without depending on the picker.
 */
@Injectable()
export class SelectionReset {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly locator: FolderLocator,
  ) {}

  async discard(source: DataSourceEntity, manager: EntityManager): Promise<void> {
    await manager.update(DataSourceEntity, { id: source.id }, { selection: [], selectionSubject: null });
    await this.repository.moveStatus(source.id, 'NotConfigured', manager);
    await this.locator.forget(source.id);
  }
}
