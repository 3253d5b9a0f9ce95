import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { DataSourceException } from '../data-sources/data-source.exception';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { SelectionDto } from '../data-sources/dto/data-source-input.dto';
import { DocumentSystemSessions } from '../folders/document-system-sessions';
import { FolderLocator } from '../folders/folder-locator';
import { SelectionMark } from './selection-rules';

/** Saves a data source's include/exclude selection and moves its ingestion status accordingly. */
@Injectable()
export class SelectionService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly locator: FolderLocator,
    private readonly sessions: DocumentSystemSessions,
  ) {}

  async replace(source: DataSourceEntity, input: SelectionDto, subject: string | null): Promise<DataSourceEntity> {
    const marks = await this.resolve(source, input);
    return this.repository.transaction(async (manager) => {
      await manager.update(DataSourceEntity, { id: source.id }, { selection: marks, selectionSubject: subject });
      await this.settleStatus(
        source.id,
        marks.some((m) => m.mode === 'include'),
        manager,
      );
      return manager.findOneByOrFail(DataSourceEntity, { id: source.id });
    });
  }

  private async resolve(source: DataSourceEntity, input: SelectionDto): Promise<SelectionMark[]> {
    const include = [...new Set(input.include)];
    const exclude = [...new Set(input.exclude)];
    const both = include.filter((id) => exclude.includes(id));
    if (both.length) throw DataSourceException.conflictingSelection(both);
    const wanted = [...include, ...exclude];
    if (!wanted.length) return [];
    const located = await this.locator.locate(source.id, () => this.sessions.forDataSource(source), wanted);
    const unknown = wanted.filter((id) => !located.has(id));
    if (unknown.length) throw DataSourceException.unknownFolders(unknown);
    const mark = (mode: SelectionMark['mode']) => (id: string) => ({
      folderId: id,
      ancestorIds: located.get(id)!.ancestorIds,
      mode,
    });
    return [...include.map(mark('include')), ...exclude.map(mark('exclude'))];
  }

  private async settleStatus(id: string, anythingIncluded: boolean, manager: EntityManager): Promise<void> {
    if (!anythingIncluded) await this.repository.moveStatus(id, 'NotConfigured', manager);
    else await this.repository.moveStatus(id, 'Pending', manager); // only from NotConfigured/Pending/NeedsReauth
  }
}
