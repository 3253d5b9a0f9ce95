import { Injectable } from '@nestjs/common';
import { Transactions } from '@app/database';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { SyncedDocumentsRepository } from '../documents/synced-documents.repository';
import { FolderLocator } from '../data-sources/folders/folder-locator';
import { LedgerRetention } from '../file-ledger/ledger-retention';
import { syncRoots } from '@app/contracts';
import { RunFollowUps } from './run-follow-ups';
import { SyncCompletion } from './sync-completion';
import { listTask } from './sync-plan';
import { SyncTask } from './sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncRunsRepository } from './sync-runs.repository';

/** A run's first step: Queued → Running; the data source starts Syncing and one task per selection root is created. */
@Injectable()
export class StartRunStep {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly locator: FolderLocator,
    private readonly transactions: Transactions,
    private readonly producer: SyncProducer,
    private readonly completion: SyncCompletion,
    private readonly ledgerRetention: LedgerRetention,
    private readonly followUps: RunFollowUps,
  ) {}

  async start(syncRunId: string): Promise<void> {
    const run = await this.runs.find(syncRunId);
    if (!run || !(await this.begin(syncRunId, run.dataSourceId))) return;
    await this.ledgerRetention.forgetOlderRuns(run.dataSourceId);
    const source = await this.sources.get(run.dataSourceId);
    const roots = syncRoots(source.selection);
    const places = await this.locator.known(
      source.id,
      roots.flatMap((r) => [...r.ancestorIds, r.folderId]),
    );
    const tasks: SyncTask[] = roots.map((root) => {
      const place = places.find((p) => p.folderId === root.folderId);
      return listTask(syncRunId, root.folderId, place?.path ?? `/${root.folderId}`);
    });
    const fresh = await this.transactions.run(async (transaction) => {
      await this.synced.upsertFolders(
        transaction,
        source.id,
        places.map((p) => ({ folderId: p.folderId, parentId: p.parentId, name: p.name, path: p.path })),
        syncRunId,
      );
      const added = await this.runs.addTasks(transaction, syncRunId, tasks);
      await this.runs.settle(transaction, syncRunId, { pendingTasks: added.length });
      return added;
    });
    await this.producer.tasks(syncRunId, fresh);
    if (!tasks.length) await this.completion.finishIfDone(syncRunId);
  }

  /**
   * Queued → Running and the data source Syncing, in one commit: a cancel in between would otherwise
   * restore the data source's status first and then see it set to Syncing for ever. A start delivered
   * again after its first delivery moved the run but died before creating its tasks goes on from there.
   */
  private async begin(syncRunId: string, dataSourceId: string): Promise<boolean> {
    const moved = await this.transactions.run(async (transaction) => {
      if (!(await this.runs.move(syncRunId, 'Running', { transaction }))) return false;
      await this.sources.moveStatus(dataSourceId, 'Syncing', transaction);
      return true;
    });
    if (moved) return true;
    if ((await this.runs.status(syncRunId)) !== 'Running') return false;
    if ((await this.runs.pendingTasks(syncRunId)) === 0) return true;
    // Delivered again after its tasks were created: their jobs may have been lost with the first delivery.
    await this.followUps.repeat(syncRunId);
    return false;
  }
}
