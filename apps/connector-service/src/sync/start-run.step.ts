import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@app/database';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { SyncedDocumentsRepository } from '../documents/synced-documents.repository';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { DocumentSystemSessions } from '../data-sources/folders/document-system-sessions';
import { FolderLocator } from '../data-sources/folders/folder-locator';
import { LedgerRetention } from '../file-ledger/ledger-retention';
import { syncRoots } from '@app/contracts/views';
import { settlesWithin } from '@app/outbound';
import { RunFollowUps } from './run-follow-ups';
import { SyncCompletion } from './sync-completion';
import { listTask } from './sync-plan';
import { SyncTask } from './sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncRunsRepository } from './sync-runs.repository';

/**
 * How long a start waits for the document system to say where the selected folders are now. Starts share
 * two slots a process across tenants: one tenant's slow document system must not hold them.
 */
const ROOT_LOOKUP_MS = 3_000;

/** A run's first step: Queued → Running; the data source starts Syncing and one task per selection root is created. */
@Injectable()
export class StartRunStep {
  private readonly logger = new Logger(StartRunStep.name);

  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly locator: FolderLocator,
    private readonly sessions: DocumentSystemSessions,
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
    const places = await this.rootPlaces(
      source,
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
   * Where the selected folders and their ancestors are now, so a folder renamed since the picker showed
   * it gives its new path to what is synced below it. Should the document system not answer, or not within
   * ROOT_LOOKUP_MS, the places recorded stand: the listing steps meet the trouble and retry.
   */
  private async rootPlaces(source: DataSourceEntity, folderIds: string[]) {
    const lookup = this.locator
      .refresh(source.id, () => this.sessions.forDataSource(source), folderIds)
      .catch((error: Error) => error);
    const places =
      (await settlesWithin(lookup, ROOT_LOOKUP_MS)) === 'done' ? await lookup : new Error('no answer in time');
    if (!(places instanceof Error)) return places;
    this.logger.warn({ dataSourceId: source.id, error: places.message }, 'selected folders not looked up again');
    return this.locator.known(source.id, folderIds);
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
