import { Injectable, Logger } from '@nestjs/common';
import { Transaction } from '@app/database';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { SavedDocument, SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import { LedgerEntry } from '../../file-ledger/ledger-entry';
import { IndexingProducer } from '../../indexing/indexing.producer';
import { IngestFilesJob } from '../sync.jobs';
import { BatchContents } from './batch-contents';
import { FetchedFile, FileDownloads, SkippedFile } from './file-downloads';
import { ingestedOutcomes } from './file-outcomes';
import { RunFollowUps } from './run-follow-ups';
import { StepGuard, TaskAlreadyDone } from './step-guard';
import { ingestedDocument, savedByThisRun, skippedDocument } from './sync-plan';

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
    private readonly synced: SyncedDocumentsRepository,
    private readonly guard: StepGuard,
    private readonly downloads: FileDownloads,
    private readonly contents: BatchContents,
    private readonly indexing: IndexingProducer,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly followUps: RunFollowUps,
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
      job.syncRunId,
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
    await this.followUps.after(job.syncRunId, { pending: step.pending });
  }

  /** Saves a batch's documents and counts; completes its task unless files are left to retry. */
  private async saveBatch(transaction: Transaction, batch: Batch) {
    const { source, syncRunId, key, fetched, skipped, failedForGood } = batch;
    await this.guard.lockOpenTask(transaction, syncRunId, key);
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
      ledger: { dataSourceId: source.id, entries: batch.outcomes },
      completes: failedForGood === null ? undefined : key,
      counts: {
        added: fetched.filter((f) => f.file.change === 'added').length,
        updated: fetched.filter((f) => f.file.change === 'updated').length,
        failed: failedForGood ?? 0,
        skipped: skipped.length,
        bytesDownloaded: fetched.reduce((n, f) => n + f.blob.size, 0),
      },
    });
    if (!settled) throw new TaskAlreadyDone(); // the run was cancelled meanwhile
    return { saved, replacedBySkipped, pending: settled.pending };
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
