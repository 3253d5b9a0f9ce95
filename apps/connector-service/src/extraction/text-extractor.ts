import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { extname } from 'node:path';
import type { DocumentExtractionStatus } from '@app/contracts/views';
import { storableText } from '../common/storable-text';
import {
  ExtractionLimitExceeded,
  ExtractionPool,
  ExtractionUnavailable,
  ExtractionPoolOptions,
} from './extraction-pool';
import { ExtractionKind, PageRange } from './read-text';

/** An extraction's end: `Pending` and `Skipped` are set by ingestion, never by the extractor. */
export type ExtractionStatus = Exclude<DocumentExtractionStatus, 'Pending' | 'Skipped'>;

export interface Extraction {
  status: ExtractionStatus;
  text: string;
  /** Where each page lies in `text`, for a PDF (UTF-16 units); empty for other formats and without text. */
  pages: PageRange[];
  error: string | null;
}

/** The longest reason kept: a parser's message may quote much of the file. */
const MAX_ERROR_CHARS = 500;

/** An extraction that gave no text; its reason as the database takes it (a parser's message may quote a NUL). */
const noText = (status: ExtractionStatus, error: string): Extraction => ({
  status,
  text: '',
  pages: [],
  error: storableText(error.slice(0, MAX_ERROR_CHARS)),
});

/**
 * Files larger than this are kept and retrievable but not extracted: the extraction's memory limit, applied before
 * the bytes are read. Past it the document is `Failed` with the reason, as past the other limits (CONTRACT.md).
 */
export const MAX_EXTRACT_BYTES = 50 * 1024 * 1024;

const tooLargeToExtract = () =>
  noText('Failed', `Larger than ${MAX_EXTRACT_BYTES / 1024 / 1024} MiB: too large to extract its text`);

const KIND_BY_EXTENSION: Record<string, ExtractionKind> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.txt': 'text',
  '.md': 'text',
  '.markdown': 'text',
  '.csv': 'text',
  '.tsv': 'text',
  '.log': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.json': 'json',
};

export function extractionKind(mimeType: string, name: string): ExtractionKind | null {
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  if (mime === 'application/pdf') return 'pdf';
  if (mime === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document') return 'docx';
  if (mime === 'text/html') return 'html';
  if (mime === 'application/json') return 'json';
  if (mime.startsWith('text/')) return 'text';
  return KIND_BY_EXTENSION[extname(name).toLowerCase()] ?? null;
}

/**
 * Text of PDF, DOCX, plain text, Markdown, CSV, HTML and JSON files, read in a pool of processes
 * within a time, memory and text limit; anything else is Unsupported.
 */
@Injectable()
export class TextExtractor implements OnModuleDestroy {
  private readonly pool: ExtractionPool;

  constructor(options: ExtractionPoolOptions = {}) {
    this.pool = new ExtractionPool(options);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
  }

  /** Like extract, but reads the bytes only when they can be extracted. */
  async extractLazily(
    size: number,
    read: () => Promise<Buffer>,
    mimeType: string,
    name: string,
    owner?: string,
  ): Promise<Extraction> {
    if (!extractionKind(mimeType, name)) return noText('Unsupported', `No text extractor for ${mimeType || name}`);
    if (size > MAX_EXTRACT_BYTES) return tooLargeToExtract();
    return this.extract(await read(), mimeType, name, owner);
  }

  /**
   * Never throws for a file it cannot read (Failed, with the reason); throws ExtractionUnavailable when no
   * process could try. `owner` (the file's tenant) takes turns for the processes with other owners' files.
   */
  async extract(content: Buffer, mimeType: string, name: string, owner?: string): Promise<Extraction> {
    const kind = extractionKind(mimeType, name);
    if (!kind) return noText('Unsupported', `No text extractor for ${mimeType || name}`);
    if (content.length > MAX_EXTRACT_BYTES) return tooLargeToExtract();
    try {
      return { status: 'Succeeded', ...(await this.pool.extract(kind, content, owner)), error: null };
    } catch (error) {
      if (error instanceof ExtractionLimitExceeded) return noText('Failed', error.message);
      if (error instanceof ExtractionUnavailable) throw error;
      return noText('Failed', `Could not read the ${kind.toUpperCase()} file: ${(error as Error).message}`);
    }
  }
}
