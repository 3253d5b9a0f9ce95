import { Injectable, Logger } from '@nestjs/common';
import { settlesWithin } from '@app/outbound';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { DocumentSystemSessions } from '../../data-sources/document-system-sessions';
import { FolderLocator } from '../../data-sources/folders/folder-locator';

/**
 * How long a start waits for the document system to say where the selected folders are now. Starts share
 * two slots a process across tenants: one tenant's slow document system must not hold them.
 */
const ROOT_LOOKUP_MS = 3_000;

/**
 * Where a run's selected folders and their ancestors are now, so a folder renamed since the picker showed
 * it gives its new path to what is synced below it. Should the document system not answer, or not within
 * ROOT_LOOKUP_MS, the places recorded stand: the listing steps meet the trouble and retry.
 */
@Injectable()
export class SelectedFolderPlaces {
  private readonly logger = new Logger(SelectedFolderPlaces.name);

  constructor(
    private readonly locator: FolderLocator,
    private readonly sessions: DocumentSystemSessions,
  ) {}

  async of(source: DataSourceEntity, folderIds: string[]) {
    const lookup = this.locator
      .refresh(source.id, () => this.sessions.forDataSource(source), folderIds)
      .catch((error: Error) => error);
    const places =
      (await settlesWithin(lookup, ROOT_LOOKUP_MS)) === 'done' ? await lookup : new Error('no answer in time');
    if (!(places instanceof Error)) return places;
    this.logger.warn({ dataSourceId: source.id, error: places.message }, 'selected folders not looked up again');
    return this.locator.known(source.id, folderIds);
  }
}
