import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@app/database';
import { BlobStore } from '../blobs/blob-store';
import { DocumentEntity } from '../documents/document.entity';
import { DocumentsRepository } from '../documents/documents.repository';
import { ConnectorEventRelay } from '../events/connector-event-relay';
import { FileLedgerRepository } from '../file-ledger/file-ledger.repository';
import { extractionOutcome } from '../file-ledger/ledger-entry';
import { Extraction, TextExtractor } from '../extraction/text-extractor';
import { layOut, NO_LAYOUT, TextLayout } from '../extraction/text-layout';
import { ConnectorMetrics } from '../metrics/connector-metrics';
import { SearchableAnnouncer } from '../searchable/searchable-announcer';
import { ExtractTextJob } from './indexing.jobs';
import { IndexingProducer } from './indexing.producer';

/** Saved: the text is searchable. Superseded: the document was changed or deleted meanwhile. AlreadyExtracted: a repeat. */
export type IndexingOutcome = 'Saved' | 'Superseded' | 'AlreadyExtracted';

/** A document still Pending this long has probably lost its job (Redis flushed, enqueue failed): it is added again. */
export const PENDING_STRANDED_AFTER_MS = 5 * 60_000;
const SWEEP_BATCH = 5000;

/** Why a job Bull failed in its stalled check did not finish (`stalledOut`). */
const STALLED_OUT = 'the worker extracting it stopped, each time it was tried';

/** The blob went away because its document changed or was deleted while the job ran. */
class ContentSuperseded extends Error {}

/**
 * Text extraction and indexing of one document's content version, off the sync run: read the blob,
 * extract, chunk, and save text, chunks and status in one conditional update, so a job for content that
 * has since been replaced can never overwrite newer text.
 */
@Injectable()
export class IndexingService {
  private readonly logger = new Logger(IndexingService.name);

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly transactions: Transactions,
    private readonly blobs: BlobStore,
    private readonly extractor: TextExtractor,
    private readonly producer: IndexingProducer,
    private readonly metrics: ConnectorMetrics,
    private readonly searchable: SearchableAnnouncer,
    private readonly relay: ConnectorEventRelay,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async extractText(job: ExtractTextJob): Promise<IndexingOutcome> {
    const doc = await this.documents.find(job.documentId);
    if (!doc || doc.contentSha256 !== job.contentSha256) return 'Superseded';
    if (doc.extractionStatus !== 'Pending') return 'AlreadyExtracted';
    let extraction;
    try {
      extraction = await this.metrics.timeExtraction(doc.mimeType, doc.name, () =>
        this.extractor.extractLazily(doc.size, () => this.read(job), doc.mimeType, doc.name, doc.tenantId),
      );
    } catch (error) {
      if (error instanceof ContentSuperseded) return 'Superseded';
      throw error;
    }
    const saved = await this.save(doc, extraction, layOut(extraction.text, extraction.pages));
    return saved ? 'Saved' : 'Superseded'; // changed, deleted or extracted by another job meanwhile
  }

  /** A job that failed for good: the document is Failed (not Pending for ever) unless it changed or got its text meanwhile. */
  async giveUp(job: ExtractTextJob, error: unknown): Promise<void> {
    const failed: Extraction = {
      status: 'Failed',
      text: '',
      pages: [],
      error: `Text extraction did not finish: ${(error as Error).message}`.slice(0, 500),
    };
    const doc = await this.documents.find(job.documentId);
    if (!doc) return;
    const target = { id: doc.id, dataSourceId: doc.dataSourceId, contentSha256: job.contentSha256 };
    // Logged by the one that failed it: every worker gives up a job Bull failed in its stalled check.
    if (await this.save(target, failed, NO_LAYOUT))
      this.logger.warn({ ...job, error: (error as Error).message }, 'text extraction failed for good');
  }

  /**
   * A job Bull failed because each worker that held it stopped (the file, most likely, ends its worker: the
   * kernel's out-of-memory killer takes the whole container). Its document is Failed, or the sweep and the
   * fair share would queue it again, and it would end workers for ever.
   */
  async stalledOut(job: ExtractTextJob): Promise<void> {
    await this.giveUp(job, new Error(STALLED_OUT));
  }

  /** Re-adds the jobs of documents Pending for longer than `strandedAfterMs`; job ids make repeats harmless. */
  async requeuePending(strandedAfterMs = PENDING_STRANDED_AFTER_MS): Promise<number> {
    const stranded = await this.documents.pendingExtractions(new Date(Date.now() - strandedAfterMs), SWEEP_BATCH);
    const byTenant = new Map<string, ExtractTextJob[]>();
    for (const d of stranded) {
      const jobs = byTenant.get(d.tenantId) ?? [];
      jobs.push({ documentId: d.id, contentSha256: d.contentSha256 });
      byTenant.set(d.tenantId, jobs);
    }
    for (const [tenantId, jobs] of byTenant) await this.producer.extractText(jobs, tenantId);
    if (stranded.length) this.logger.log({ count: stranded.length }, 'pending text extractions queued again');
    return stranded.length;
  }

  /** Saves the result and, when it was the data source's last pending one, its DataSourceSearchable (published after the commit). */
  private async save(
    doc: Pick<DocumentEntity, 'id' | 'dataSourceId' | 'contentSha256'>,
    extraction: Extraction,
    layout: TextLayout,
  ): Promise<boolean> {
    const result = await this.transactions.run(async (transaction) => {
      if (!(await this.documents.saveExtraction(transaction, doc, extraction, layout))) return null;
      const outcome = extractionOutcome(extraction);
      if (outcome && doc.contentSha256)
        await this.ledger.extractionEnded(transaction, doc.id, doc.contentSha256, outcome);
      return { event: await this.searchable.afterExtraction(transaction, doc.dataSourceId) };
    });
    if (result?.event) await this.relay.publish(result.event);
    return result !== null;
  }

  private async read(job: ExtractTextJob): Promise<Buffer> {
    try {
      return await this.blobs.read(job.contentSha256);
    } catch (error) {
      // A blob is deleted only once no document refers to it: this one was changed or deleted meanwhile.
      if (!(await this.isCurrent(job))) throw new ContentSuperseded();
      throw error;
    }
  }

  private async isCurrent(job: ExtractTextJob): Promise<boolean> {
    return (await this.documents.contentSha256Of(job.documentId)) === job.contentSha256;
  }
}
