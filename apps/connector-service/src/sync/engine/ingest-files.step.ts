import { Injectable, Logger } from '@nestjs/common';
import { Transaction } from '@app/database';
import { DomainException } from '@app/errors';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { SavedDocument, SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import { IndexingProducer } from '../../indexing/indexing.producer';
import { ConnectorEnv } from '../../connector-env';
import { listedSize } from '../run-progress';
import { IngestFilesJob } from '../sync.jobs';
import { SyncRunsRepository } from '../sync-runs.repository';
import { BatchContents } from './batch-contents';
import { FetchedFile, FileDownloads, SkippedFile } from './file-downloads';
import { ingestedOutcomes } from './file-outcomes';
import { storedWithinLimit } from './run-limits';
import { RunFollowUps } from './run-follow-ups';
import { StepGuard, TaskAlreadyDone } from './step-guard';
import { ingestedDocument, savedByThisRun, skippedDocument } from './sync-plan';

interface Batch {
  source: DataSourceEntity;
  syncRunId: string;
  key: string;
  fetched: FetchedFile[];
  skipped: SkippedFile[];
  failures: Failure[];
  /** The files that fail now fail for good (counted, and the task completed); otherwise they are left to the retry. */
  finished: boolean;
}

type Failure = { file: FetchedFile['file']; error: unknown };

/** A file not stored because the run's bytes would pass SYNC_MAX_BYTES with it: its ledger reason. */
class NotStoredAtLimit extends DomainException {
  constructor(reached: string) {
    super(409, 'RUN_LIMIT_REACHED', `RUN_LIMIT_REACHED: ${reached}: not stored`);
  }
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
    private readonly runs: SyncRunsRepository,
    private readonly env: ConnectorEnv,
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
        this.saveBatch(transaction, { source, syncRunId: job.syncRunId, key, fetched, skipped, failures, finished }),
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
    const { kept: fetched, dropped, addedBytes, limit } = await this.withinRunBytes(transaction, batch);
    const overLimit = dropped.map(({ file }) => ({ file, error: new NotStoredAtLimit(limit!.reached) }));
    const failedForGood = finished ? [...batch.failures, ...overLimit] : [];
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
      ledger: { dataSourceId: source.id, entries: ingestedOutcomes(fetched, skipped, failedForGood) },
      completes: finished ? key : undefined,
      limit,
      counts: {
        added: fetched.filter((f) => f.file.change === 'added').length,
        updated: fetched.filter((f) => f.file.change === 'updated').length,
        failed: failedForGood.length,
        skipped: skipped.length,
        bytesDownloaded: batch.fetched.reduce((n, f) => n + f.blob.size, 0),
        listedBytes: addedBytes,
      },
    });
    if (!settled) throw new TaskAlreadyDone(); // the run was cancelled meanwhile
    // Bytes not stored are let go of after the commit (their retry, if any, downloads them again).
    return { saved, replacedBySkipped, notStored: dropped.map((f) => f.blob.sha256), pending: settled.pending };
  }

  /**
   * The downloads the run may store within SYNC_MAX_BYTES. Only files with more bytes than listed (or none
   * listed) bring more to the run; for those, the run's bytes are read under its listing lock, so the batches
   * and listings that add to them do so one at a time.
   */
  private async withinRunBytes(transaction: Transaction, batch: Batch) {
    const beyondListed = (f: FetchedFile) => Math.max(0, f.blob.size - listedSize(f.file));
    if (!batch.fetched.some((f) => beyondListed(f) > 0))
      return { kept: batch.fetched, dropped: [], addedBytes: 0, limit: null };
    const { listedBytes } = await this.runs.lockListing(transaction, batch.syncRunId);
    return storedWithinLimit(batch.fetched, beyondListed, listedBytes, this.env.SYNC_MAX_BYTES);
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
