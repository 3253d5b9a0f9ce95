import { Injectable, Logger } from '@nestjs/common';
import { Transaction } from '@app/database';
import { ConnectorEnv } from '../../connector-env';
import { SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { DocumentSystemException } from '../../document-system/document-system.exception';
import type { FolderEntry } from '../../document-system/document-system.adapter';
import { listedSize } from '../run-progress';
import { ListFolderJob, SyncJobName, SyncTask } from '../sync.jobs';
import { RunStepsRepository } from '../run-steps.repository';
import { listedOutcomes, returnedOutcomes } from './file-outcomes';
import { FolderPagesRepository } from './folder-pages.repository';
import { RunFollowUps } from './run-follow-ups';
import { RunLimits, withinLimits } from './run-limits';
import { RunSessions } from './run-sessions';
import { pageSightings, returnedFiles, untaken } from './run-sightings';
import { StepGuard, TaskAlreadyDone } from './step-guard';
import { pageEntries, pageTasks, planFiles } from './sync-plan';

/**
 * A folder's pages, one after another in one job: each page is a task committed with its effects, and
 * the next page's task is committed with it, so a retried job (its own task done) goes on from the
 * folder's first open page. One job per folder, not per page: an unchanged folder costs its listing.
 */
@Injectable()
export class ListFolderStep {
  private readonly logger = new Logger(ListFolderStep.name);

  constructor(
    private readonly steps: RunStepsRepository,
    private readonly sessions: RunSessions,
    private readonly synced: SyncedDocumentsRepository,
    private readonly guard: StepGuard,
    private readonly followUps: RunFollowUps,
    private readonly env: ConnectorEnv,
    private readonly pages: FolderPagesRepository,
  ) {}

  async listFolder(job: ListFolderJob, key: string): Promise<void> {
    const state = await this.steps.stepState(job.syncRunId, key);
    if (state.status !== 'Running') return;
    if (state.done) await this.followUps.repeat(job.syncRunId);
    let page: SyncTask<SyncJobName.ListFolder> | null = state.done
      ? await this.steps.openPageOf(job.syncRunId, job.folderId)
      : { key, name: SyncJobName.ListFolder, data: job };
    // Each page's commit finds the run Running and adds the next page's task: no page looks them up again.
    while (page) page = await this.listPage(page.data, page.key, state.dataSourceId!, state.listingStopped);
  }

  /**
   * One page of a folder: subfolders become tasks, unchanged files are marked seen, the rest queued, as far as
   * the run's limits allow (nothing listed once its listing stopped at one). Returns the next page's task.
   */
  private async listPage(
    job: ListFolderJob,
    key: string,
    dataSourceId: string,
    listingStopped: boolean,
  ): Promise<SyncTask<SyncJobName.ListFolder> | null> {
    const { source, docs } = await this.sessions.forRun(job.syncRunId, dataSourceId);
    const page = listingStopped ? { items: [], nextCursor: null } : await docs.listChildren(job.folderId, job.cursor);
    // An item left out as unreadable may be a known document: taken without it, the page would have it look deleted.
    if (page.unreadable) throw DocumentSystemException.unreadableItems(page.unreadable);
    const listed = pageEntries(page, source.selection);

    // Row locks on the run are taken last, so concurrent steps of one run wait on each other briefly.
    const step = await this.guard.once(async (transaction) => {
      // Pages of one run are weighed against its limits one at a time, each seeing those committed before it.
      const soFar = await this.steps.lockListing(transaction, job.syncRunId);
      // A file listed in two folders (or twice) is taken once per run, at its first listing.
      const seen = await this.synced.sightings(
        transaction,
        job.syncRunId,
        listed.files.map((f) => f.id),
      );
      const { folders, files, nextCursor, limit } = withinLimits(
        {
          ...listed,
          files: untaken(listed.files, seen),
          path: job.path,
          nextCursor: page.nextCursor,
          depth: job.depth ?? 0,
        },
        soFar,
        this.limits(),
      );
      const known = await this.synced.known(source.id, [
        ...files.map((f) => f.id),
        ...listed.files.filter((f) => seen.has(f.id)).map((f) => f.id),
      ]);
      const plan = planFiles(job, files, known);
      const returned = returnedFiles(job, listed.files, seen, known);
      // Pages of a run commit one at a time (lockListing): a folder's first page task is there once one reached it.
      const already = await this.pages.listedAlready(transaction, job, folders, nextCursor);
      const placed = await this.placeFolders(transaction, source.id, job, folders, already.folderIds);
      const { tasks, nextPage } = pageTasks(job, placed, plan.ingest, nextCursor);
      // A cursor the folder gave before in this run would end its listing short (that page is listed): it fails.
      const cursorAgain = nextPage !== null && already.cursorAgain;
      // Every file still listed is seen, even one whose new version fails to download: it must not be dropped.
      await this.synced.markSeen(transaction, pageSightings(files, known, plan, returned), job.syncRunId);
      const moves = [...plan.relocated, ...plan.restamped, ...returned.map((r) => r.move)];
      await this.synced.relocate(transaction, moves, job.syncRunId);
      const settled = await this.guard.commit(transaction, job.syncRunId, {
        ledger: {
          dataSourceId: source.id,
          entries: [...listedOutcomes(job.path, files, known, plan), ...returnedOutcomes(returned)],
        },
        adds: tasks,
        completes: key,
        limit,
        counts: {
          discovered: files.length,
          unchanged: plan.unchanged.length + returned.length,
          updated: plan.relocated.length - returned.length,
          listedBytes: files.reduce((n, f) => n + listedSize(f), 0),
          plannedBytes: plan.ingest.reduce((n, f) => n + listedSize(f), 0),
          listedPages: 1,
          failedListings: cursorAgain ? 1 : 0,
        },
      });
      if (!settled) throw new TaskAlreadyDone(); // the run was cancelled meanwhile
      return { ...settled, nextPage, cursorAgain };
    });
    if (step === null) return null;
    const { nextPage, cursorAgain } = step;
    if (cursorAgain)
      this.logger.warn(
        { syncRunId: job.syncRunId, folderId: job.folderId },
        'folder listing failed: the document system gave a cursor of this folder again; the run deletes nothing',
      );
    // The next page is this job's to list; every other new task gets a job of its own.
    await this.followUps.after(job.syncRunId, {
      jobs: step.added.filter((t) => t.key !== nextPage?.key),
      folderListed: !nextPage || cursorAgain,
      pending: step.pending,
    });
    return step.added.some((t) => t.key === nextPage?.key) ? nextPage : null;
  }

  /**
   * Places the page's subfolders below this folder; returns those to list. One the run lists already (a
   * selected folder, or one a listing reached first another way: a loop, a second parent) keeps its place and
   * is not listed again: a loop ends there. An ancestor the run's start placed is no such folder: listed here.
   */
  private async placeFolders(
    transaction: Transaction,
    dataSourceId: string,
    job: ListFolderJob,
    folders: FolderEntry[],
    listed: Set<string>,
  ): Promise<FolderEntry[]> {
    const reached = folders.filter((f) => !listed.has(f.id));
    await this.synced.upsertFolders(
      transaction,
      dataSourceId,
      reached.map((f) => ({ folderId: f.id, parentId: job.folderId, name: f.name, path: `${job.path}/${f.name}` })),
      job.syncRunId,
    );
    if (listed.size)
      this.logger.warn(
        { syncRunId: job.syncRunId, dataSourceId, parentId: job.folderId, folderIds: [...listed] },
        'folders reached again in this run keep their first place and are not listed again',
      );
    return reached;
  }

  /** Read at each page, so a changed limit applies to the runs under way from their next page on. */
  private limits(): RunLimits {
    const { SYNC_MAX_FILES: maxFiles, SYNC_MAX_BYTES: maxBytes, SYNC_MAX_PAGES: maxPages } = this.env;
    return { maxFiles, maxBytes, maxPages, maxDepth: this.env.SYNC_MAX_DEPTH };
  }
}
