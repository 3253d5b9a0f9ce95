import { Injectable, OnModuleInit } from '@nestjs/common';
import { ContentsClearingRepository } from '../../data-sources/contents-clearing.repository';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { EmptiedSelections, EmptiedSelectionSettler } from '../../data-sources/selection/emptied-selections';
import { selectsSomething } from '../../data-sources/selects-something';
import { UnselectedDocuments } from '../../documents/unselected-documents';
import { SyncRunsRepository } from '../sync-runs.repository';
import { SyncCompletion } from './sync-completion';

/** The error of a run cancelled because its data source selects nothing any more. */
export const NOTHING_SELECTED_ANY_MORE = 'Cancelled: the selection was cleared or discarded';

/**
 * A data source that selects nothing (its selection cleared, or discarded with its login) keeps no run under
 * way and no documents; nor does one moved to another login keep what the former one ingested, whatever the new
 * login selects (no run starts until that is gone, so all it holds is the former login's). Its run is cancelled
 * first, so a step in flight commits nothing more; then what was ingested goes, documents committed until the
 * cancel included. Right after the commit that emptied the selection or changed the login, before a run starts
 * should that have failed, and from a job the sweep queues for what a crash left (its tenant's, under the sync
 * fair share).
 */
@Injectable()
export class UnselectedSources implements EmptiedSelectionSettler, OnModuleInit {
  constructor(
    private readonly emptied: EmptiedSelections,
    private readonly sources: DataSourcesRepository,
    private readonly clearing: ContentsClearingRepository,
    private readonly runs: SyncRunsRepository,
    private readonly completion: SyncCompletion,
    private readonly documents: UnselectedDocuments,
  ) {}

  onModuleInit(): void {
    this.emptied.register(this);
  }

  async settle(dataSourceId: string): Promise<void> {
    const source = await this.sources.find(dataSourceId);
    if (!source) return;
    if (selectsSomething(source.selection) && !(await this.clearing.formerLoginLeft(dataSourceId))) return;
    // Each step checks again under the data source's lock: a selection saved since keeps its run and its documents,
    // unless a former login's are still there (then no run of the new login has started).
    const active = await this.runs.findActive(dataSourceId);
    if (active) await this.completion.cancelUnselected(active.id, NOTHING_SELECTED_ANY_MORE);
    await this.documents.remove(dataSourceId, (transaction) =>
      this.clearing.clearingContents(transaction, dataSourceId),
    );
  }
}
