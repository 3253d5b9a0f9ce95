import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { SharedQueue, SyncCompletedEvent } from '@app/contracts';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { IngestionStatus } from '../data-sources/ingestion-status';
import { DocumentsRepository } from '../documents/documents.repository';
import { UnreferencedBlobs } from '../documents/unreferenced-blobs';
import { outcomeOf, SyncRunStatus } from './sync-run-state';
import { SyncRunEntity } from './sync-run.entity';
import { SyncRunsRepository } from './sync-runs.repository';

const INGESTION_AFTER: Record<'Succeeded' | 'PartiallySucceeded' | 'Failed', IngestionStatus> = {
  Succeeded: 'Synced',
  PartiallySucceeded: 'PartiallySynced',
  Failed: 'Failed',
};

/**
 * How runs end: when the last task is done (deleted files are dropped then, and only when every
 * folder was listed), when the authorization is lost, or when a user cancels. Exactly one caller wins
 * each ending, and only the winner emits SyncCompleted.
 */
@Injectable()
export class SyncCompletion {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly documents: DocumentsRepository,
    private readonly blobGarbage: UnreferencedBlobs,
    @InjectQueue(SharedQueue.ConnectorEvents) private readonly events: Queue,
  ) {}

  async finishIfDone(syncRunId: string): Promise<void> {
    if ((await this.runs.pendingTasks(syncRunId)) > 0) return;
    const ended = await this.runs.transaction(async (manager) => {
      const [run]: SyncRunEntity[] = await manager.query('SELECT * FROM connector.sync_runs WHERE id = $1 FOR UPDATE', [syncRunId]);
      if (!run || run.status !== 'Running' || run.pendingTasks > 0) return null;
      const dropped = run.failedListings === 0 ? await this.documents.deleteUnseen(manager, run.dataSourceId, syncRunId) : [];
      await this.documents.forgetSightings(syncRunId, manager);
      if (dropped.length) await this.runs.settle(manager, syncRunId, { deleted: dropped.length });
      const outcome = outcomeOf({ ...run, deleted: run.deleted + dropped.length }, run.failedListings) as keyof typeof INGESTION_AFTER;
      await this.runs.move(syncRunId, outcome, { manager, error: run.failedListings ? `${run.failedListings} folder listing(s) failed; deletions were not applied` : null });
      await this.sources.moveStatus(run.dataSourceId, INGESTION_AFTER[outcome], manager);
      return { dropped };
    });
    if (!ended) return;
    await this.blobGarbage.collect(ended.dropped);
    await this.announce(syncRunId);
  }

  /** Ends a run at once (authorization lost, or a user cancelled). */
  async abort(syncRunId: string, dataSourceStatus: IngestionStatus, error: string, runStatus: SyncRunStatus = 'Failed'): Promise<void> {
    const run = await this.runs.runs.findOneBy({ id: syncRunId });
    if (!run || !(await this.runs.move(syncRunId, runStatus, { error }))) return;
    await this.documents.forgetSightings(syncRunId);
    await this.sources.moveStatus(run.dataSourceId, dataSourceStatus);
    await this.announce(syncRunId);
  }

  private async announce(syncRunId: string): Promise<void> {
    const run = await this.runs.runs.findOneByOrFail({ id: syncRunId });
    const source = await this.sources.sources.findOneBy({ id: run.dataSourceId });
    if (!source) return;
    const event: SyncCompletedEvent = {
      type: 'SyncCompleted',
      tenantId: run.tenantId,
      projectId: source.projectId,
      dataSourceId: run.dataSourceId,
      syncRunId,
      status: run.status as SyncCompletedEvent['status'],
      counts: { discovered: run.discovered, added: run.added, updated: run.updated, unchanged: run.unchanged, deleted: run.deleted, failed: run.failed },
    };
    await this.events.add('SyncCompleted', event, { jobId: `sync-completed:${syncRunId}`, removeOnComplete: 1000 });
  }
}
