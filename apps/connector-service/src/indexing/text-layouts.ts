import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@app/database';
import { BlobStore } from '../blobs/blob-store';
import { DocumentsRepository } from '../documents/documents.repository';
import { extractionKind, TextExtractor } from '../extraction/text-extractor';
import { layOut, TextLayout } from '../extraction/text-layout';
import { LayOutTextJob } from './indexing.jobs';
import { IndexingProducer } from './indexing.producer';

/** How many documents one sweep queues to be laid out; a sweep runs once a minute. */
export const LAYOUT_BATCH = 500;

/**
 * Documents whose text was extracted before chunks and pages kept their place (migration
 * 1795300054000-passages) are laid out again in the background: passages leave them out until then,
 * search finds them all along. A PDF is extracted again, for its pages; any other text is cut again as
 * it is stored (the same chunks, so their vectors are kept).
 */
@Injectable()
export class TextLayouts {
  private readonly logger = new Logger(TextLayouts.name);

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly transactions: Transactions,
    private readonly blobs: BlobStore,
    private readonly extractor: TextExtractor,
    private readonly producer: IndexingProducer,
  ) {}

  /** Queues up to LAYOUT_BATCH documents without a layout; job ids make queuing one twice harmless. */
  async queueMissing(): Promise<number> {
    const missing = await this.documents.withoutLayout(LAYOUT_BATCH);
    await this.producer.layOutText(missing.map((d) => ({ documentId: d.id, contentSha256: d.contentSha256 })));
    if (missing.length) this.logger.log({ count: missing.length }, 'texts queued to be laid out');
    return missing.length;
  }

  async layOut(job: LayOutTextJob): Promise<'Saved' | 'Superseded'> {
    const doc = await this.documents.find(job.documentId);
    if (!doc || !(await this.documents.needsLayout({ id: doc.id, contentSha256: job.contentSha256 })))
      return 'Superseded';
    if (extractionKind(doc.mimeType, doc.name) === 'pdf') {
      const read = () => this.blobs.read(job.contentSha256);
      const extraction = await this.extractor.extractLazily(doc.size, read, doc.mimeType, doc.name, doc.tenantId);
      if (extraction.status === 'Succeeded')
        return this.save(job, layOut(extraction.text, extraction.pages), extraction.text);
      // Read once, not now (a limit, say): its stored text is laid out without pages.
    }
    return this.layOutStored(job);
  }

  /** The stored text laid out as it is, without pages: also what a job that failed for good leaves (no retry for ever). */
  async layOutStored(job: LayOutTextJob): Promise<'Saved' | 'Superseded'> {
    return this.save(job, layOut(await this.documents.textOf(job.documentId), []));
  }

  private async save(job: LayOutTextJob, layout: TextLayout, text?: string): Promise<'Saved' | 'Superseded'> {
    const target = { id: job.documentId, contentSha256: job.contentSha256 };
    const saved = await this.transactions.run((transaction) =>
      this.documents.saveLayout(transaction, target, layout, text),
    );
    return saved ? 'Saved' : 'Superseded';
  }
}
