import { Injectable, Logger } from '@nestjs/common';
import { Transaction } from '@app/database';
import { BlobStore } from '../../blobs/blob-store';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { DocumentContentsRepository } from '../../documents/document-contents.repository';
import { SavedDocument, SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { LedgerEntry } from '../../file-ledger/ledger-entry';
import { IndexingProducer } from '../../indexing/indexing.producer';
import { FetchedFile, FileDownloads, SkippedFile } from './file-downloads';
import { ingestedOutcomes } from './file-outcomes';
import { StepGuard, TaskAlreadyDone } from './step-guard';
import { SyncCompletion } from './sync-completion';
import { ingestedDocument, savedByThisRun, skippedDocument } from './sync-plan';
import { IngestFilesJob } from '../sync.jobs';
import { SyncRunsRepository } from '../sync-runs.repository';

/** The bytes were collected between the put and the save: the job fails and its retry downloads again. */
class ContentCollected extends Error {
  constructor(sha256: string) {
    super(`content ${sha256} was collected while it was being ingested; the file is downloaded again`);
  }
}

interface Batch {
  source: DataSourceEntity;
  syncRunId: string;
  key: string;
  fetched: FetchedFile[];
  skipped: SkippedFile[];
  /** The files that failed for good (counted, and the task completed); null: they are left to the retry. */
  failedForGood: number | null;
  /** The batch's rows of the run's file ledger. */
  outcomes: LedgerEntry[];
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
    private readonly runs: SyncRunsRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly contents: DocumentContentsRepository,
    private readonly guard: StepGuard,
    private readonly blobs: BlobStore,
    private readonly downloads: FileDownloads,
    private readonly indexing: IndexingProducer,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly completion: SyncCompletion,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async ingestFiles(job: IngestFilesJob, key: string, lastAttempt: boolean): Promise<void> {
    const context = await this.guard.activeContext(job.syncRunId, key);
    if (!context) return;
    const { source, docs } = context;
    const known = await this.synced.known(
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
      (transaction) =>
        this.saveBatch(transaction, {
          source,
          syncRunId: job.syncRunId,
          key,
          fetched,
          skipped,
          failedForGood: finished ? failures.length : null,
          outcomes: ingestedOutcomes(fetched, skipped, finished ? failures : []),
        }),
    );
    if (step === null) return;
    await this.afterSave(source, job.syncRunId, step.saved, step.replacedBySkipped);
    if (!finished)
      throw new Error(
        `${failures.length} of ${job.files.length} files failed, first ${failures[0].file.fileId}: ${(failures[0].error as Error).message}`,
      );
    if (step.pending === 0) await this.completion.finishIfDone(job.syncRunId);
  }

  /** Saves a batch's documents and counts; completes its task unless files are left to retry. */
  private async saveBatch(transaction: Transaction, batch: Batch) {
    const { source, syncRunId, key, fetched, skipped, failedForGood } = batch;
    if (!(await this.runs.lockOpenTask(transaction, syncRunId, key))) throw new TaskAlreadyDone();
    await this.contents.lockContents(
      transaction,
      fetched.map((f) => f.blob.sha256),
    );
    // The collector may have taken identical bytes away since the put (another data source let go of them).
    // Asked all at once: with S3 each is a round trip, and the content stays locked until the commit.
    const hashes = [...new Set(fetched.map(({ blob }) => blob.sha256))];
    const present = await Promise.all(hashes.map((sha256) => this.blobs.exists(sha256)));
    const collected = hashes.find((_, i) => !present[i]);
    if (collected) throw new ContentCollected(collected);
    const saved = await this.synced.saveIngested(
      transaction,
      fetched.map(({ file, blob, mimeType }) => ingestedDocument(source, syncRunId, file, blob, mimeType)),
    );
    const replacedBySkipped = await this.synced.saveSkipped(
      transaction,
      skipped.map((s) => skippedDocument(source, syncRunId, s)),
    );
    await this.ledger.record(transaction, source.id, syncRunId, batch.outcomes);
    if (failedForGood !== null) await this.guard.completeOrRollBack(transaction, syncRunId, key);
    const pending = await this.runs.settle(transaction, syncRunId, {
      pendingTasks: failedForGood === null ? 0 : -1,
      added: fetched.filter((f) => f.file.change === 'added').length,
      updated: fetched.filter((f) => f.file.change === 'updated').length,
      failed: failedForGood ?? 0,
      skipped: skipped.length,
      bytesDownloaded: fetched.reduce((n, f) => n + f.blob.size, 0),
    });
    if (pending === null) throw new TaskAlreadyDone(); // the run was cancelled meanwhile
    return { saved, replacedBySkipped, pending };
  }

  /** Queues text extraction of the saved documents and lets go of the content they replaced. */
  private async afterSave(
    source: DataSourceEntity,
    syncRunId: string,
    saved: SavedDocument[],
    replacedBySkipped: string[],
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
    const replaced = [
      ...saved.flatMap((row) => (row.replacedSha256 ? [row.replacedSha256] : [])),
      ...replacedBySkipped,
    ];
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
