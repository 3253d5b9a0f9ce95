import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sha256Hex } from '@app/crypto';
import { BlobStore, StoredBlob } from '../blobs/blob-store';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import {
  DocumentsRepository,
  IngestedDocument,
  KnownDocument,
  SavedDocument,
  SkippedDocument,
} from '../documents/documents.repository';
import { UnreferencedBlobs } from '../documents/unreferenced-blobs';
import type { ChildEntry, DocumentSystemSession, FileEntry } from '../document-system/document-system.adapter';
import { isReauthRequired } from '../document-system/document-system.exception';
import { FolderLocator } from '../data-sources/folders/folder-locator';
import { IndexingProducer } from '../indexing/indexing.producer';
import { excludedIds, syncRoots } from '../data-sources/selection-rules';
import { FetchedFile, FileDownloads, SkippedFile } from './file-downloads';
import { RunSessions } from './run-sessions';
import { SyncCompletion } from './sync-completion';
import {
  FileToIngest,
  INGEST_BATCH_BYTES,
  INGEST_BATCH_FILES,
  IngestFilesJob,
  ListFolderJob,
  SyncJobName,
  SyncTask,
} from './sync.jobs';
import { SyncProducer } from './sync.producer';
import { SyncRunsRepository } from './sync-runs.repository';

/** A duplicate delivery of a step that another worker already completed. */
class TaskAlreadyDone extends Error {}

/** The bytes were collected between the put and the save: the job fails and its retry downloads again. */
class ContentCollected extends Error {
  constructor(sha256: string) {
    super(`content ${sha256} was collected while it was being ingested; the file is downloaded again`);
  }
}

/**
 * The work of a sync run, one idempotent step per job: start (roots), list one page of a folder,
 * ingest one file. Each step commits its effects and marks its task done in one transaction.
 */
@Injectable()
export class SyncEngine {
  private readonly logger = new Logger(SyncEngine.name);

  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly sources: DataSourcesRepository,
    private readonly documents: DocumentsRepository,
    private readonly locator: FolderLocator,
    private readonly sessions: RunSessions,
    private readonly blobs: BlobStore,
    private readonly producer: SyncProducer,
    private readonly indexing: IndexingProducer,
    private readonly completion: SyncCompletion,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly downloads: FileDownloads,
  ) {}

  /** Queued → Running: the data source starts Syncing and one task per selection root is created. */
  async start(syncRunId: string): Promise<void> {
    const run = await this.runs.runs.findOneBy({ id: syncRunId });
    if (!run || !(await this.runs.move(syncRunId, 'Running'))) return;
    const source = await this.sources.get(run.dataSourceId);
    await this.sources.moveStatus(source.id, 'Syncing');
    const roots = syncRoots(source.selection);
    const places = await this.locator.known(
      source.id,
      roots.flatMap((r) => [...r.ancestorIds, r.folderId]),
    );
    const tasks: SyncTask[] = roots.map((root) => {
      const place = places.find((p) => p.folderId === root.folderId);
      return listTask(syncRunId, root.folderId, place?.path ?? `/${root.folderId}`);
    });
    const fresh = await this.runs.transaction(async (manager) => {
      await this.documents.upsertFolders(
        manager,
        source.id,
        places.map((p) => ({ folderId: p.folderId, parentId: p.parentId, name: p.name, path: p.path })),
        syncRunId,
      );
      const added = await this.runs.addTasks(manager, syncRunId, tasks);
      await this.runs.settle(manager, syncRunId, { pendingTasks: added.length });
      return added;
    });
    await this.producer.tasks(syncRunId, fresh);
    if (!tasks.length) await this.completion.finishIfDone(syncRunId);
  }

  /**
   * A folder's pages, one after another in this job: each page is a task committed with its effects, and
   * the next page's task is committed with it, so a retried job (its own task done) goes on from the
   * folder's first open page. One job per folder, not per page: an unchanged folder costs its listing.
   */
  async listFolder(job: ListFolderJob, key: string): Promise<void> {
    const state = await this.runs.stepState(job.syncRunId, key);
    if (state.status !== 'Running') return;
    let page: SyncTask<SyncJobName.ListFolder> | null = state.done
      ? await this.runs.openPageOf(job.syncRunId, job.folderId)
      : { key, name: SyncJobName.ListFolder, data: job };
    while (page) page = await this.listPage(page.data, page.key);
  }

  /** One page of a folder: subfolders become tasks, unchanged files are marked seen, the rest queued. Returns the next page's task. */
  private async listPage(job: ListFolderJob, key: string): Promise<SyncTask<SyncJobName.ListFolder> | null> {
    const context = await this.activeContext(job.syncRunId, key);
    if (!context) return null;
    const { source, docs } = context;
    const page = await docs.listChildren(job.folderId, job.cursor);
    const excluded = excludedIds(source.selection);
    const folders = page.items.filter(
      (c): c is Extract<ChildEntry, { kind: 'folder' }> => c.kind === 'folder' && !excluded.has(c.id),
    );
    const files = page.items.filter((c): c is FileEntry => c.kind === 'file');
    const known = await this.documents.known(
      source.id,
      files.map((f) => f.id),
    );
    const plan = planFiles(job, files, known);

    const nextPage = page.nextCursor ? listTask(job.syncRunId, job.folderId, job.path, page.nextCursor) : null;
    const tasks: SyncTask[] = [
      ...folders.map((f) => listTask(job.syncRunId, f.id, `${job.path}/${f.name}`)),
      ...batches(plan.ingest).map((files) => ingestTask(job.syncRunId, files)),
      ...(nextPage ? [nextPage] : []),
    ];

    // Row locks on the run are taken last, so concurrent steps of one run wait on each other briefly.
    const step = await this.onceInTransaction(async (manager) => {
      await this.documents.upsertFolders(
        manager,
        source.id,
        folders.map((f) => ({ folderId: f.id, parentId: job.folderId, name: f.name, path: `${job.path}/${f.name}` })),
        job.syncRunId,
      );
      // Every file still listed is seen, even one whose new version fails to download: it must not be dropped.
      await this.documents.markSeen(manager, [...known.keys()], job.syncRunId);
      await this.documents.relocate(manager, plan.relocated, job.syncRunId);
      const added = await this.runs.addTasks(manager, job.syncRunId, tasks);
      await this.completeOrRollBack(manager, job.syncRunId, key);
      const pending = await this.runs.settle(manager, job.syncRunId, {
        pendingTasks: added.length - 1,
        discovered: files.length,
        unchanged: plan.unchanged.length,
        updated: plan.relocated.length,
      });
      return { added, pending };
    });
    if (step === null) return null;
    // The next page is this job's to list; every other new task gets a job of its own.
    await this.producer.tasks(
      job.syncRunId,
      step.added.filter((t) => t.key !== nextPage?.key),
    );
    if (step.pending === 0) await this.completion.finishIfDone(job.syncRunId);
    return step.added.some((t) => t.key === nextPage?.key) ? nextPage : null;
  }

  /**
   * Downloads a batch of files one after another (streamed into the blob store) and saves them in one
   * transaction. Text is extracted afterwards on the indexing queue, so the run is bound by I/O. A file
   * that fails keeps the batch's task open: the retry downloads only what this run has not saved yet,
   * and the last attempt counts what still fails.
   */
  async ingestFiles(job: IngestFilesJob, key: string, lastAttempt: boolean): Promise<void> {
    const context = await this.activeContext(job.syncRunId, key);
    if (!context) return;
    const { source, docs } = context;
    const known = await this.documents.known(
      source.id,
      job.files.map((f) => f.fileId),
    );
    const { fetched, skipped, failures } = await this.downloads.download(
      docs,
      job.files.filter((file) => !savedByThisRun(job.syncRunId, file, known.get(file.fileId))),
    );
    const finished = failures.length === 0 || lastAttempt;
    const step = await this.saveOrCollect(
      fetched.map((f) => f.blob.sha256),
      (manager) =>
        this.saveBatch(manager, {
          source,
          syncRunId: job.syncRunId,
          key,
          fetched,
          skipped,
          failedForGood: finished ? failures.length : null,
        }),
    );
    if (step === null) return;
    await this.afterSave(job.syncRunId, step.saved, step.replacedBySkipped);
    if (!finished)
      throw new Error(
        `${failures.length} of ${job.files.length} files failed, first ${failures[0].file.fileId}: ${(failures[0].error as Error).message}`,
      );
    if (step.pending === 0) await this.completion.finishIfDone(job.syncRunId);
  }

  /** Saves a batch's documents and counts; completes its task unless files are left to retry (`failedForGood` null). */
  private async saveBatch(
    manager: EntityManager,
    batch: {
      source: DataSourceEntity;
      syncRunId: string;
      key: string;
      fetched: FetchedFile[];
      skipped: SkippedFile[];
      failedForGood: number | null;
    },
  ) {
    const { source, syncRunId, key, fetched, skipped, failedForGood } = batch;
    if (!(await this.runs.lockOpenTask(manager, syncRunId, key))) throw new TaskAlreadyDone();
    await this.documents.lockContents(
      manager,
      fetched.map((f) => f.blob.sha256),
    );
    // The collector may have taken identical bytes away since the put (another data source let go of them).
    for (const { blob } of fetched)
      if (!(await this.blobs.exists(blob.sha256))) throw new ContentCollected(blob.sha256);
    const saved = await this.documents.saveIngested(
      manager,
      fetched.map(({ file, blob, mimeType }) => ingestedDocument(source, syncRunId, file, blob, mimeType)),
    );
    const replacedBySkipped = await this.documents.saveSkipped(
      manager,
      skipped.map((s) => skippedDocument(source, syncRunId, s)),
    );
    if (failedForGood !== null) await this.completeOrRollBack(manager, syncRunId, key);
    const pending = await this.runs.settle(manager, syncRunId, {
      pendingTasks: failedForGood === null ? 0 : -1,
      added: fetched.filter((f) => f.file.change === 'added').length,
      updated: fetched.filter((f) => f.file.change === 'updated').length,
      failed: failedForGood ?? 0,
      skipped: skipped.length,
      bytesDownloaded: fetched.reduce((n, f) => n + f.blob.size, 0),
    });
    return { saved, replacedBySkipped, pending };
  }

  /** Queues text extraction of the saved documents and lets go of the content they replaced. */
  private async afterSave(syncRunId: string, saved: SavedDocument[], replacedBySkipped: string[]): Promise<void> {
    const toExtract = saved
      .filter((row) => row.extractionPending)
      .map((row) => ({ documentId: row.id, contentSha256: row.contentSha256 }));
    // The documents are saved now, so a failure here must not fail the step: the indexing sweep adds the jobs again.
    await this.indexing
      .extractText(toExtract)
      .catch((error) =>
        this.logger.warn(
          { syncRunId, error: (error as Error).message },
          'text extraction not queued; the sweep will queue it',
        ),
      );
    const replaced = [
      ...saved.flatMap((row) => (row.replacedSha256 ? [row.replacedSha256] : [])),
      ...replacedBySkipped,
    ];
    if (replaced.length) await this.blobGarbage.collect(replaced);
  }

  /** A step that failed for good: counted, and the run goes on without it. */
  async giveUp(
    syncRunId: string,
    key: string,
    step: { kind: SyncJobName.ListFolder } | { kind: SyncJobName.IngestFiles; files: FileToIngest[] },
    error: unknown,
  ): Promise<void> {
    if (isReauthRequired(error))
      return this.completion.abort(syncRunId, 'NeedsReauth', 'The document system asked to re-authenticate');
    this.logger.warn({ syncRunId, key, error: (error as Error).message }, 'sync step failed for good');
    const deltas =
      step.kind === SyncJobName.ListFolder
        ? { failedListings: 1 }
        : { failed: await this.unsaved(syncRunId, step.files) };
    const pending = await this.runs.transaction(async (manager) => {
      if (!(await this.runs.completeTask(manager, syncRunId, key))) return null;
      return this.runs.settle(manager, syncRunId, { ...deltas, pendingTasks: -1 });
    });
    if (pending === 0) await this.completion.finishIfDone(syncRunId);
  }

  /** Files of a batch that an earlier attempt did not save (and count) already. */
  private async unsaved(syncRunId: string, files: FileToIngest[]): Promise<number> {
    const run = await this.runs.runs.findOneByOrFail({ id: syncRunId });
    const known = await this.documents.known(
      run.dataSourceId,
      files.map((f) => f.fileId),
    );
    return files.filter((file) => !savedByThisRun(syncRunId, file, known.get(file.fileId))).length;
  }

  /** Saving a stored blob's document; when that does not happen (cancelled, failed), the blob is not kept for nothing. */
  private async saveOrCollect<T>(hashes: string[], work: (manager: EntityManager) => Promise<T>): Promise<T | null> {
    try {
      const saved = await this.onceInTransaction(work);
      if (saved === null) await this.blobGarbage.collect(hashes);
      return saved;
    } catch (error) {
      // The save's own error is the one to report; a collection that fails too leaves the blobs for later.
      await this.blobGarbage.collect(hashes).catch(() => undefined);
      throw error;
    }
  }

  /** Runs `work` in a transaction that is rolled back when its task turns out to be done already. */
  private async onceInTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T | null> {
    try {
      return await this.runs.transaction(work);
    } catch (error) {
      if (error instanceof TaskAlreadyDone) return null;
      throw error;
    }
  }

  private async completeOrRollBack(manager: EntityManager, syncRunId: string, key: string): Promise<void> {
    if (!(await this.runs.completeTask(manager, syncRunId, key))) throw new TaskAlreadyDone();
  }

  private async activeContext(
    syncRunId: string,
    key: string,
  ): Promise<{ source: DataSourceEntity; docs: DocumentSystemSession } | null> {
    const state = await this.runs.stepState(syncRunId, key);
    if (state.status !== 'Running' || state.done) return null;
    return this.sessions.forRun(syncRunId);
  }
}

function listTask(
  syncRunId: string,
  folderId: string,
  path: string,
  cursor?: string,
): SyncTask<SyncJobName.ListFolder> {
  const key = cursor ? `folder:${folderId}:${sha256Hex(cursor).slice(0, 16)}` : `folder:${folderId}`;
  return { key, name: SyncJobName.ListFolder, data: { syncRunId, folderId, path, ...(cursor ? { cursor } : {}) } };
}

function ingestTask(syncRunId: string, files: FileToIngest[]): SyncTask {
  // The same file listed twice in one run (moved while listing) lands in two batches; its document is upserted once.
  const key = `files:${sha256Hex(files.map((f) => f.fileId).join('\n')).slice(0, 24)}`;
  return { key, name: SyncJobName.IngestFiles, data: { syncRunId, files } };
}

/** Consecutive files in batches of at most INGEST_BATCH_FILES files and INGEST_BATCH_BYTES bytes (a bigger file goes alone). */
export function batches(files: FileToIngest[]): FileToIngest[][] {
  const out: FileToIngest[][] = [];
  let current: FileToIngest[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = file.size ?? INGEST_BATCH_BYTES;
    if (current.length && (current.length >= INGEST_BATCH_FILES || bytes + size > INGEST_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

/**
 * A retried batch skips the files this run already saved: the document carries the listed version. A
 * skipped file's document may carry it from an earlier run, so that one counts once this run saved it.
 */
function savedByThisRun(syncRunId: string, file: FileToIngest, doc: KnownDocument | undefined): boolean {
  return !!doc && sameContent(file, doc) && (doc.stored || doc.lastSeenRunId === syncRunId);
}

function ingestedDocument(
  source: DataSourceEntity,
  syncRunId: string,
  file: FileToIngest,
  blob: StoredBlob,
  mimeType: string,
): IngestedDocument {
  return {
    tenantId: source.tenantId,
    dataSourceId: source.id,
    externalId: file.fileId,
    folderId: file.folderId,
    name: file.name,
    path: file.path,
    mimeType,
    size: blob.size,
    version: file.version ?? null,
    modifiedAt: file.modifiedAt ?? null,
    remoteSha256: file.sha256 ?? null,
    contentSha256: blob.sha256,
    lastSeenRunId: syncRunId,
  };
}

function skippedDocument(source: DataSourceEntity, syncRunId: string, { file, size }: SkippedFile): SkippedDocument {
  return {
    tenantId: source.tenantId,
    dataSourceId: source.id,
    externalId: file.fileId,
    folderId: file.folderId,
    name: file.name,
    path: file.path,
    mimeType: file.mimeType || 'application/octet-stream',
    size,
    version: file.version ?? null,
    modifiedAt: file.modifiedAt ?? null,
    remoteSha256: file.sha256 ?? null,
    lastSeenRunId: syncRunId,
  };
}

interface FilePlan {
  unchanged: string[];
  relocated: Array<{ id: string; name: string; path: string; folderId: string }>;
  ingest: FileToIngest[];
}

/** Decides per file: unchanged (seen only), moved or renamed (metadata only), or new/changed (download). */
export function planFiles(
  job: Pick<ListFolderJob, 'syncRunId' | 'folderId' | 'path'>,
  files: FileEntry[],
  known: Map<string, KnownDocument>,
): FilePlan {
  const plan: FilePlan = { unchanged: [], relocated: [], ingest: [] };
  for (const file of files) {
    const path = `${job.path}/${file.name}`;
    const doc = known.get(file.id);
    // A file skipped as too large is planned again, so a raised MAX_FILE_BYTES takes it in.
    if (doc && doc.stored && sameContent(file, doc)) {
      if (doc.name === file.name && doc.path === path && doc.folderId === job.folderId) plan.unchanged.push(file.id);
      else plan.relocated.push({ id: doc.id, name: file.name, path, folderId: job.folderId });
      continue;
    }
    plan.ingest.push({
      fileId: file.id,
      folderId: job.folderId,
      name: file.name,
      path,
      ...(file.mimeType ? { mimeType: file.mimeType } : {}),
      ...(Number.isSafeInteger(file.size) && file.size! >= 0 ? { size: file.size } : {}),
      ...(file.version !== undefined && file.version !== null ? { version: String(file.version) } : {}),
      ...(file.modifiedAt ? { modifiedAt: file.modifiedAt } : {}),
      ...(file.sha256 ? { sha256: file.sha256 } : {}),
      change: doc ? 'updated' : 'added',
    });
  }
  return plan;
}

/** Whatever the listing gives, strongest first: checksum, then version, then modified time and size. */
function sameContent(file: Pick<FileEntry, 'sha256' | 'version' | 'modifiedAt' | 'size'>, doc: KnownDocument): boolean {
  if (file.sha256 && doc.remoteSha256) return file.sha256 === doc.remoteSha256;
  if (file.version !== undefined && file.version !== null && doc.version !== null)
    return String(file.version) === doc.version;
  if (file.modifiedAt && doc.modifiedAt)
    return (
      new Date(file.modifiedAt).getTime() === new Date(doc.modifiedAt).getTime() &&
      (file.size === undefined || file.size === doc.size)
    );
  return false;
}
