import { Injectable } from '@nestjs/common';
import { SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { listedSize } from '../run-progress';
import { RunListingRepository } from './run-listing.repository';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { listedOutcomes } from './file-outcomes';
import { RunFollowUps } from './run-follow-ups';
import { StepGuard, TaskAlreadyDone } from './step-guard';
import { SyncCompletion } from './sync-completion';
import { pageEntries, pageTasks, planFiles } from './sync-plan';
import { ListFolderJob, SyncJobName, SyncTask } from '../sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncRunsRepository } from '../sync-runs.repository';

/**
 * A folder's pages, one after another in one job: each page is a task committed with its effects, and
 * the next page's task is committed with it, so a retried job (its own task done) goes on from the
 * folder's first open page. One job per folder, not per page: an unchanged folder costs its listing.
 */
@Injectable()
export class ListFolderStep {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly guard: StepGuard,
    private readonly producer: SyncProducer,
    private readonly completion: SyncCompletion,
    private readonly listing: RunListingRepository,
    private readonly ledger: FileLedgerRepository,
    private readonly followUps: RunFollowUps,
  ) {}

  async listFolder(job: ListFolderJob, key: string): Promise<void> {
    const state = await this.runs.stepState(job.syncRunId, key);
    if (state.status !== 'Running') return;
    if (state.done) await this.followUps.repeat(job.syncRunId);
    let page: SyncTask<SyncJobName.ListFolder> | null = state.done
      ? await this.runs.openPageOf(job.syncRunId, job.folderId)
      : { key, name: SyncJobName.ListFolder, data: job };
    while (page) page = await this.listPage(page.data, page.key);
  }

  /** One page of a folder: subfolders become tasks, unchanged files are marked seen, the rest queued. Returns the next page's task. */
  private async listPage(job: ListFolderJob, key: string): Promise<SyncTask<SyncJobName.ListFolder> | null> {
    const context = await this.guard.activeContext(job.syncRunId, key);
    if (!context) return null;
    const { source, docs } = context;
    const page = await docs.listChildren(job.folderId, job.cursor);
    const { folders, files } = pageEntries(page, source.selection);
    const known = await this.synced.known(
      source.id,
      files.map((f) => f.id),
    );
    const plan = planFiles(job, files, known);
    const { tasks, nextPage } = pageTasks(job, folders, plan.ingest, page.nextCursor);

    // Row locks on the run are taken last, so concurrent steps of one run wait on each other briefly.
    const step = await this.guard.once(async (transaction) => {
      await this.synced.upsertFolders(
        transaction,
        source.id,
        folders.map((f) => ({ folderId: f.id, parentId: job.folderId, name: f.name, path: `${job.path}/${f.name}` })),
        job.syncRunId,
      );
      // Every file still listed is seen, even one whose new version fails to download: it must not be dropped.
      await this.synced.markSeen(transaction, [...known.keys()], job.syncRunId);
      await this.synced.relocate(transaction, plan.relocated, job.syncRunId);
      await this.ledger.record(transaction, source.id, job.syncRunId, listedOutcomes(job.path, files, known, plan));
      const added = await this.runs.addTasks(transaction, job.syncRunId, tasks);
      await this.guard.completeOrRollBack(transaction, job.syncRunId, key);
      // The run's row stays locked until the commit: nothing after this.
      const pending = await this.runs.settle(transaction, job.syncRunId, {
        pendingTasks: added.length - 1,
        discovered: files.length,
        unchanged: plan.unchanged.length,
        updated: plan.relocated.length,
        listedBytes: files.reduce((n, f) => n + listedSize(f), 0),
        plannedBytes: plan.ingest.reduce((n, f) => n + listedSize(f), 0),
      });
      if (pending === null) throw new TaskAlreadyDone(); // the run was cancelled meanwhile
      return { added, pending };
    });
    if (step === null) return null;
    // The next page is this job's to list; every other new task gets a job of its own.
    await this.producer.tasks(
      job.syncRunId,
      step.added.filter((t) => t.key !== nextPage?.key),
    );
    // After the jobs: a failure here leaves the stamp to the run's end, not the new tasks to the sweep.
    if (!nextPage) await this.listing.stampIfListed(job.syncRunId);
    if (step.pending === 0) await this.completion.finishIfDone(job.syncRunId);
    return step.added.some((t) => t.key === nextPage?.key) ? nextPage : null;
  }
}
