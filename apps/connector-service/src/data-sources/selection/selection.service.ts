import { Injectable } from '@nestjs/common';
import { Transactions } from '@app/database';
import { DataSourceEntity } from '../data-source.entity';
import { DataSourceException } from '../data-source.exception';
import { DataSourcesRepository } from '../data-sources.repository';
import { DocumentSystemSessions } from '../document-system-sessions';
import { FolderLocator } from '../folders/folder-locator';
import { SelectionMark } from '@app/contracts/views';
import { SelectionDto } from './dto/selection.dto';

/** Saves a data source's include/exclude selection and moves its ingestion status accordingly. */
@Injectable()
export class SelectionService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly transactions: Transactions,
    private readonly locator: FolderLocator,
    private readonly sessions: DocumentSystemSessions,
  ) {}

  async replace(source: DataSourceEntity, input: SelectionDto, subject: string | null): Promise<DataSourceEntity> {
    const marks = await this.resolve(source, input);
    return this.transactions.run(async (transaction) => {
      await this.repository.saveSelection(transaction, source.id, marks, subject);
      // Pending only from NotConfigured or Pending (INGESTION_MOVES): a NeedsReauth one waits for its authorization.
      const status = marks.some((m) => m.mode === 'include') ? 'Pending' : 'NotConfigured';
      await this.repository.moveStatus(source.id, status, transaction);
      return this.repository.get(source.id, transaction);
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
      name: located.get(id)!.name,
    });
    return [...include.map(mark('include')), ...exclude.map(mark('exclude'))];
  }
}
