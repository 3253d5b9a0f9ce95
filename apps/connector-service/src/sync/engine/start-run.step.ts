import { Injectable } from '@nestjs/common';
import { syncRoots } from '@app/contracts/views';
import { Transactions } from '@app/database';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { LedgerRetention } from '../../file-ledger/ledger-retention';
import { SyncRunEntity } from '../sync-run.entity';
import { SyncTask } from '../sync.jobs';
import { RunStepsRepository } from '../run-steps.repository';
import { SyncRunsRepository } from '../sync-runs.repository';
import { RunFollowUps } from './run-follow-ups';
import { SelectedFolderPlaces } from './selected-folder-places';
import { listTask } from './sync-plan';

/** A run's first step: Queued → Running; the data source starts Syncing and one task per selection root is created. */
@Injectable()
export class StartRunStep {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly steps: RunStepsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly places: SelectedFolderPlaces,
    private readonly transactions: Transactions,
    private readonly followUps: RunFollowUps,
    private readonly ledgerRetention: LedgerRetention,
  ) {}

  async start(syncRunId: string): Promise<void> {
    const run = await this.begin(syncRunId);
    if (!run) return;
    await this.ledgerRetention.forgetOlderRuns(run.dataSourceId);
    const source = await this.sources.get(run.dataSourceId);
    const roots = syncRoots(source.selection);
    const places = await this.places.of(
      source,
      roots.flatMap((r) => [...r.ancestorIds, r.folderId]),
    );
    const tasks: SyncTask[] = roots.map((root) => {
      const place = places.find((p) => p.folderId === root.folderId);
      return listTask(syncRunId, root.folderId, place?.path ?? `/${root.folderId}`);
    });
    const settled = await this.transactions.run(async (transaction) => {
      await this.synced.upsertFolders(
        transaction,
        source.id,
        places.map((p) => ({ folderId: p.folderId, parentId: p.parentId, name: p.name, path: p.path })),
        syncRunId,
      );
      return this.steps.settleStep(transaction, syncRunId, { adds: tasks });
    });
    // Nothing selected to list ends the run at once; a run cancelled meanwhile has nothing to queue.
    if (typeof settled === 'object')
      await this.followUps.after(syncRunId, { jobs: settled.added, pending: settled.pending });
  }

  /**
   * Queued → Running and the data source Syncing, in one commit: a cancel in between would otherwise
   * restore the data source's status first and then see it set to Syncing for ever. A start delivered
   * again after its first delivery moved the run but died before creating its tasks goes on from there.
   * Returns the run to start, or null when this delivery has nothing to do.
   */
  private async begin(syncRunId: string): Promise<SyncRunEntity | null> {
    const begun = await this.transactions.run(async (transaction) => {
      const run = await this.runs.begin(transaction, syncRunId);
      if (run) await this.sources.moveStatus(run.dataSourceId, 'Syncing', transaction);
      return run;
    });
    if (begun) return begun;
    const run = await this.runs.find(syncRunId);
    if (run?.status !== 'Running') return null;
    if (run.pendingTasks === 0) return run;
    // Delivered again after its tasks were created: their jobs may have been lost with the first delivery.
    await this.followUps.repeat(syncRunId);
    return null;
  }
}
