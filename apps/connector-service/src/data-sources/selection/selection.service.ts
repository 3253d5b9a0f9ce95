import { Injectable } from '@nestjs/common';
import { Transaction, Transactions } from '@app/database';
import { DataSourceEntity } from '../data-source.entity';
import { DataSourceException } from '../data-source.exception';
import { DataSourcesRepository } from '../data-sources.repository';
import { DocumentSystemSessions } from '../document-system-sessions';
import { FolderLocator } from '../folders/folder-locator';
import { SelectionMark } from '@app/contracts/views';
import { SelectionDto } from './dto/selection.dto';

/** What a selection is resolved against: a data source as it is, or as a change will make it. */
export type SelectionSource = Pick<
  DataSourceEntity,
  'id' | 'tenantId' | 'credentialId' | 'connectionId' | 'instanceOrigin'
>;

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
      await this.save(transaction, source.id, marks, subject);
      const saved = await this.repository.find(source.id, transaction);
      if (!saved) throw DataSourceException.notFound(); // deleted meanwhile
      return saved;
    });
  }

  /** Saves resolved marks; Pending only from NotConfigured or Pending (INGESTION_MOVES): a NeedsReauth one waits for its authorization. */
  async save(transaction: Transaction, id: string, marks: SelectionMark[], subject: string | null): Promise<void> {
    await this.repository.saveSelection(transaction, id, marks, subject);
    await this.repository.moveStatus(
      id,
      marks.some((m) => m.mode === 'include') ? 'Pending' : 'NotConfigured',
      transaction,
    );
  }

  /**
   * The selection's folders as the document system shows them to this data source's login (400 for unknown
   * ones); `asAnotherIdentity`: none of the folders recorded for it before counts.
   */
  async resolve(source: SelectionSource, input: SelectionDto, asAnotherIdentity = false): Promise<SelectionMark[]> {
    if (asAnotherIdentity) await this.locator.forget(source.id);
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
