import { Injectable } from '@nestjs/common';
import { Transaction, Transactions } from '@app/database';
import { DataSourceEntity } from '../data-source.entity';
import { DataSourceException } from '../data-source.exception';
import { DataSourcesRepository } from '../data-sources.repository';
import { ConnectionTokens } from '../../document-system/connection-tokens.port';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { DocumentSystemSessions } from '../document-system-sessions';
import { originToConfirm } from '../instance-origin';
import { FolderLocator } from '../folders/folder-locator';
import { PickerFolderEntity } from '../folders/picker-folder.entity';
import { SelectionMark } from '@app/contracts/views';
import { SelectionDto } from './dto/selection.dto';
import { EmptiedSelections } from './emptied-selections';
import { sameSelectionBasis, SELECTION_TRIES } from './selection-basis';
import { selectsSomething } from '../selects-something';

/** What a selection is resolved against: a data source as it is, or as a change will make it. */
export type SelectionSource = Pick<
  DataSourceEntity,
  'id' | 'tenantId' | 'credentialId' | 'connectionId' | 'instanceOrigin'
>;

/** A selection's marks, and the folders it met (recorded once it is saved, when it was resolved afresh). */
export interface ResolvedSelection {
  marks: SelectionMark[];
  folders: PickerFolderEntity[];
}

/** Saves a data source's include/exclude selection and moves its ingestion status accordingly. */
@Injectable()
export class SelectionService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly transactions: Transactions,
    private readonly locator: FolderLocator,
    private readonly sessions: DocumentSystemSessions,
    private readonly connections: ConnectionTokens,
    private readonly emptied: EmptiedSelections,
  ) {}

  /**
   * Resolves and saves a selection, by its creator or an admin: at the origin its credential points at now, which
   * is recorded with the selection (a refused one confirms nothing). The data source is read again under its row
   * lock before saving: when another change moved what the selection was resolved against (SelectionBasis), it is
   * resolved again as the data source is now, as if it had come second. Saved selecting nothing, its run stops and
   * its documents go.
   */
  async replace(source: DataSourceEntity, input: SelectionDto, subject: string | null): Promise<DataSourceEntity> {
    for (let tries = 1; ; tries++) {
      const confirmed = { ...source, instanceOrigin: originToConfirm(source) };
      const marks = await this.resolve(confirmed, input);
      const outcome = await this.transactions.run(async (transaction) => {
        const now = await this.repository.lockForChange(transaction, source.id);
        if (!now) throw DataSourceException.notFound(); // deleted meanwhile
        if (!sameSelectionBasis(confirmed, { ...now, instanceOrigin: originToConfirm(now) })) return { moved: now };
        // The data source's lock keeps its credential from moving until this commits (credential changes take it).
        if ((await this.repository.recordInstanceOrigin(transaction, source.id)) === null)
          throw DataSourceException.notFound();
        await this.save(transaction, source.id, marks, subject);
        return { saved: await this.repository.get(source.id, transaction) };
      });
      if (outcome.saved) {
        if (!selectsSomething(outcome.saved.selection)) await this.emptied.settle(source.id);
        return outcome.saved;
      }
      if (tries === SELECTION_TRIES) throw DataSourceException.changedMeanwhile();
      source = outcome.moved;
      subject = (await this.connections.tenantConnection(source.tenantId, source.connectionId)).subject;
    }
  }

  /** Saves resolved marks; Pending only from NotConfigured or Pending (INGESTION_MOVES): a NeedsReauth one waits for its authorization. */
  async save(transaction: Transaction, id: string, marks: SelectionMark[], subject: string | null): Promise<void> {
    await this.repository.saveSelection(transaction, id, marks, subject);
    await this.repository.moveStatus(id, selectsSomething(marks) ? 'Pending' : 'NotConfigured', transaction);
  }

  /** The selection's folders as the document system shows them to this data source's login (400 for unknown ones). */
  async resolve(source: SelectionSource, input: SelectionDto): Promise<SelectionMark[]> {
    return (await this.marksOf(source, input, false)).marks;
  }

  /**
   * The same, as another login will see them (a change of credential or identity, not saved yet): the folders
   * recorded for the data source do not count, and those met are returned to `keep` once the change is saved
   * (its discard forgets the old ones): until then a sync of the old selection keeps its folders' places.
   */
  async resolveAfresh(source: SelectionSource, input: SelectionDto): Promise<ResolvedSelection> {
    return this.marksOf(source, input, true);
  }

  /** Records the folders a selection resolved afresh met, once it is saved. */
  keep(resolved: ResolvedSelection): Promise<void> {
    return this.locator.keep(resolved.folders);
  }

  /**
   * The same, for a data source not stored yet, through `session` (its login may not be stored either): as
   * `resolveAfresh`, nothing is recorded; the folders met are to be recorded with the data source.
   */
  resolveThrough(
    dataSourceId: string,
    session: () => Promise<DocumentSystemSession>,
    input: SelectionDto,
  ): Promise<ResolvedSelection> {
    return this.marksThrough(dataSourceId, session, input, true);
  }

  private marksOf(source: SelectionSource, input: SelectionDto, afresh: boolean): Promise<ResolvedSelection> {
    return this.marksThrough(source.id, () => this.sessions.forDataSource(source), input, afresh);
  }

  private async marksThrough(
    dataSourceId: string,
    session: () => Promise<DocumentSystemSession>,
    input: SelectionDto,
    afresh: boolean,
  ): Promise<ResolvedSelection> {
    const include = [...new Set(input.include)];
    const exclude = [...new Set(input.exclude)];
    const both = include.filter((id) => exclude.includes(id));
    if (both.length) throw DataSourceException.conflictingSelection(both);
    const wanted = [...include, ...exclude];
    if (!wanted.length) return { marks: [], folders: [] };
    const located = await this.locator.locate(dataSourceId, session, wanted, { afresh });
    const unknown = wanted.filter((id) => !located.has(id));
    if (unknown.length) throw DataSourceException.unknownFolders(unknown);
    const mark = (mode: SelectionMark['mode']) => (id: string) => ({
      folderId: id,
      ancestorIds: located.get(id)!.ancestorIds,
      mode,
      name: located.get(id)!.name,
    });
    return {
      marks: [...include.map(mark('include')), ...exclude.map(mark('exclude'))],
      folders: [...located.values()],
    };
  }
}
