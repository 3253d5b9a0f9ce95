import { Injectable, Logger } from '@nestjs/common';
import { Transaction } from '@app/database';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { SavedDocument, SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import { IndexingProducer } from '../../indexing/indexing.producer';
import { listedSize } from '../run-progress';
import { FileToIngest, IngestFilesJob } from '../sync.jobs';
import { BatchContents } from './batch-contents';
import { FetchedFile, FileDownloads, SkippedFile } from './file-downloads';
import { ingestedOutcomes, notStoredOutcomes } from './file-outcomes';
import { RunBytes } from './run-bytes';
import { RunFollowUps } from './run-follow-ups';
import { StepGuard, TaskAlreadyDone } from './step-guard';
import { ingestedDocument, savedByThisRun, skippedDocument } from './sync-plan';

interface Batch {
  source: DataSourceEntity;
  syncRunId: string;
  key: string;
  fetched: FetchedFile[];
  skipped: SkippedFile[];
  /** Downloaded no further: their bytes passed what the run had left under SYNC_MAX_BYTES. */
  overLimit: FileToIngest[];
  failures: Array<{ file: FileToIngest; error: unknown }>;
  /** Listed, then gone at their download: neither stored nor failed; their documents (if any) go at the run's end. */
  gone: FileToIngest[];
  /** The files that fail now fail for good (counted, and the task completed); otherwise they are left to the retry. */
  finished: boolean;
  /** Stored by this run already: their bytes were counted then. */
  exempt: (file: FileToIngest) => boolean;
}

/**
 * Downloads a batch of files one after another (streamed into the blob store) and saves them in one
 * transaction. Text is extracted afterwards on the indexing queue, so the run is bound by I/O. A file
 * that fails keeps the batch's task open: the retry downloads only what this run has not saved yet,
 * and the last attempt counts what still fails.
 */
@Injectable()
export class IngestFilesStep {
  private readonly logger = new Logger(IngestFilesStep.name);

  constructor(
    private readonly synced: SyncedDocumentsRepository,
    private readonly guard: StepGuard,
    private readonly downloads: FileDownloads,
    private readonly contents: BatchContents,
    private readonly indexing: IndexingProducer,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly followUps: RunFollowUps,
    private readonly runBytes: RunBytes,
  ) {}

  async ingestFiles(job: IngestFilesJob, key: string, lastAttempt: boolean): Promise<void> {
    const context = await this.guard.activeContext(job.syncRunId, key);
    if (!context) return;
    const { source, docs, listedBytes } = context;
    const known = await this.synced.known(
      source.id,
      job.files.map((f) => f.fileId),
    );
    // A file this run stored already and downloads again (listed twice, in another version meanwhile).
    const exempt = (file: FileToIngest) => {
      const doc = known.get(file.fileId);
      return !!doc && doc.stored && doc.lastSeenRunId === job.syncRunId;
    };
    const downloaded = await this.downloads.download(
      docs,
      job.files.filter((file) => !savedByThisRun(job.syncRunId, file, known.get(file.fileId))),
      job.syncRunId,
      { headroom: this.runBytes.headroom(listedBytes), exempt },
    );
    const { fetched, failures } = downloaded;
    const finished = failures.length === 0 || lastAttempt;
    const batch: Batch = { source, syncRunId: job.syncRunId, key, ...downloaded, finished, exempt };
    const step = await this.saveOrCollect(
      fetched.map((f) => f.blob.sha256),
      (transaction) => this.saveBatch(transaction, batch),
    );
    if (step === null) return;
    await this.afterSave(source, job.syncRunId, step.saved, [...step.replacedBySkipped, ...step.notStored]);
    if (!finished)
      throw new Error(
        `${failures.length} of ${job.files.length} files failed, first ${failures[0].file.fileId}: ${(failures[0].error as Error).message}`,
      );
    await this.followUps.after(job.syncRunId, { pending: step.pending });
  }

  /** Saves a batch's documents and counts; completes its task unless files are left to retry. */
  private async saveBatch(transaction: Transaction, batch: Batch) {
    const { source, syncRunId, key, skipped, finished } = batch;
    await this.guard.lockOpenTask(transaction, syncRunId, key);
    const {
      kept: fetched,
      dropped,
      addedBytes,
      limit,
      notStoredEntries,
    } = await this.withinRunBytes(transaction, batch);
    const failedForGood = finished ? batch.failures : [];
    await this.contents.keep(
      transaction,
      fetched.map((f) => f.blob.sha256),
    );
    const saved = await this.synced.saveIngested(
      transaction,
      fetched.map(({ file, blob, mimeType }) => ingestedDocument(source, syncRunId, file, blob, mimeType)),
    );
    const replacedBySkipped = await this.synced.saveSkipped(
      transaction,
      skipped.map((s) => skippedDocument(source, syncRunId, s)),
    );
    const settled = await this.guard.commit(transaction, syncRunId, {
      ledger: {
        dataSourceId: source.id,
        entries: [...ingestedOutcomes(fetched, skipped, failedForGood), ...notStoredEntries],
      },
      gone: batch.gone.map((f) => f.fileId),
      completes: finished ? key : undefined,
      limit,
      counts: {
        added: fetched.filter((f) => f.file.change === 'added').length,
        updated: fetched.filter((f) => f.file.change === 'updated').length,
        failed: failedForGood.length + notStoredEntries.length,
        skipped: skipped.length,
        bytesDownloaded: batch.fetched.reduce((n, f) => n + f.blob.size, 0),
        listedBytes: addedBytes,
      },
    });
    if (!settled) throw new TaskAlreadyDone(); // the run was cancelled meanwhile
    // Bytes not stored are let go of after the commit (their retry, if any, downloads them again).
    return { saved, replacedBySkipped, notStored: dropped.map((f) => f.blob.sha256), pending: settled.pending };
  }

  /** What of the batch the run may store under SYNC_MAX_BYTES, and the ledger rows of the files it may not. */
  private async withinRunBytes(transaction: Transaction, batch: Batch) {
    const beyondListed = (f: FetchedFile) => (batch.exempt(f.file) ? 0 : Math.max(0, f.blob.size - listedSize(f.file)));
    const stored = await this.runBytes.storable(transaction, batch.syncRunId, batch.fetched, beyondListed);
    const overLimit = [...batch.overLimit, ...stored.dropped.map((f) => f.file)];
    const limit = stored.limit ?? (overLimit.length ? this.runBytes.reached() : null);
    // Failed, and counted as the other failures are: once the batch is finished.
    const notStoredEntries =
      batch.finished && limit ? notStoredOutcomes(overLimit, `RUN_LIMIT_REACHED: ${limit.reached}: not stored`) : [];
    return { ...stored, limit, notStoredEntries };
  }

  /** Queues text extraction of the saved documents and lets go of the content they replaced or that was not stored. */
  private async afterSave(
    source: DataSourceEntity,
    syncRunId: string,
    saved: SavedDocument[],
    letGo: string[],
  ): Promise<void> {
    const toExtract = saved
      .filter((row) => row.extractionPending)
      .map((row) => ({ documentId: row.id, contentSha256: row.contentSha256 }));
    // The documents are saved now, so a failure here must not fail the step: the indexing sweep adds the jobs again.
    await this.indexing
      .extractText(toExtract, source.tenantId)
      .catch((error) =>
        this.logger.warn(
          { syncRunId, error: (error as Error).message },
          'text extraction not queued; the sweep will queue it',
        ),
      );
    const replaced = [...saved.flatMap((row) => (row.replacedSha256 ? [row.replacedSha256] : [])), ...letGo];
    if (replaced.length) await this.blobGarbage.collect(replaced);
  }

  /** Saving a stored blob's document; when that does not happen (cancelled, failed), the blob is not kept for nothing. */
  private async saveOrCollect<T>(hashes: string[], work: (transaction: Transaction) => Promise<T>): Promise<T | null> {
    try {
      const saved = await this.guard.once(work);
      if (saved === null) await this.blobGarbage.collect(hashes);
      return saved;
    } catch (error) {
      // The save's own error is the one to report; a collection that fails too leaves the blobs for later.
      await this.blobGarbage.collect(hashes).catch(() => undefined);
      throw error;
    }
  }
}
