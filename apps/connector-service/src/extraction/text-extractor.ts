import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { extname } from 'node:path';
import { PdfTextPool } from './pdf-text-worker';

export type ExtractionStatus = 'Succeeded' | 'Unsupported' | 'Failed' | 'TooLarge';

export interface Extraction {
  status: ExtractionStatus;
  text: string;
  error: string | null;
}

/** Files larger than this are kept and retrievable but not extracted. */
export const MAX_EXTRACT_BYTES = 50 * 1024 * 1024;
/** Text kept per document for search. */
export const MAX_TEXT_CHARS = 5_000_000;

type Kind = 'pdf' | 'docx' | 'text' | 'html' | 'json';

const KIND_BY_EXTENSION: Record<string, Kind> = {
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

export function extractionKind(mimeType: string, name: string): Kind | null {
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  if (mime === 'application/pdf') return 'pdf';
  if (mime === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document') return 'docx';
  if (mime === 'text/html') return 'html';
  if (mime === 'application/json') return 'json';
  if (mime.startsWith('text/')) return 'text';
  return KIND_BY_EXTENSION[extname(name).toLowerCase()] ?? null;
}

/** Text of PDF, DOCX, plain text, Markdown, CSV, HTML and JSON files; anything else is Unsupported. */
@Injectable()
export class TextExtractor implements OnModuleDestroy {
  private readonly pdfWorkers = new PdfTextPool();
  private readonly extractors: Record<Kind, (content: Buffer) => Promise<string>> = {
    ...EXTRACTORS,
    pdf: (content) => this.pdfWorkers.extract(content),
  };

  async onModuleDestroy(): Promise<void> {
    await this.pdfWorkers.close();
  }

  /** Like extract, but reads the bytes only when they can be extracted. */
  async extractLazily(size: number, read: () => Promise<Buffer>, mimeType: string, name: string): Promise<Extraction> {
    if (!extractionKind(mimeType, name)) return { status: 'Unsupported', text: '', error: `No text extractor for ${mimeType || name}` };
    if (size > MAX_EXTRACT_BYTES) return { status: 'TooLarge', text: '', error: `Larger than ${MAX_EXTRACT_BYTES} bytes` };
    return this.extract(await read(), mimeType, name);
  }

  async extract(content: Buffer, mimeType: string, name: string): Promise<Extraction> {
    const kind = extractionKind(mimeType, name);
    if (!kind) return { status: 'Unsupported', text: '', error: `No text extractor for ${mimeType || name}` };
    if (content.length > MAX_EXTRACT_BYTES) return { status: 'TooLarge', text: '', error: `Larger than ${MAX_EXTRACT_BYTES} bytes` };
    try {
      const text = normalise(await this.extractors[kind](content));
      return { status: 'Succeeded', text: text.slice(0, MAX_TEXT_CHARS), error: null };
    } catch (error) {
      return { status: 'Failed', text: '', error: `Could not read the ${kind.toUpperCase()} file: ${(error as Error).message}`.slice(0, 500) };
    }
  }
}

const EXTRACTORS: Record<Exclude<Kind, 'pdf'>, (content: Buffer) => Promise<string>> = {
  async docx(content) {
    const mammoth = await import('mammoth');
    return (await mammoth.extractRawText({ buffer: content })).value;
  },
  async text(content) {
    return content.toString('utf8');
  },
  async json(content) {
    // Values only: keys repeat in every record and drown out what matters.
    const values: string[] = [];
    const walk = (v: unknown): void => {
      if (v === null || v === undefined) return;
      if (Array.isArray(v)) v.forEach(walk);
      else if (typeof v === 'object') Object.values(v as object).forEach(walk);
      else values.push(String(v));
    };
    walk(JSON.parse(content.toString('utf8')));
    return values.join('\n');
  },
  async html(content) {
    return decodeEntities(
      content
        .toString('utf8')
        .replace(/<(script|style|noscript)[\s\S]*?<\/\1>/gi, ' ')
        .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6]|tr)>/gi, '\n')
        .replace(/<[^>]+>/g, ' '),
    );
  },
};

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x?[0-9a-f]+|\w+);/gi, (match, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : match;
    }
    return named[entity.toLowerCase()] ?? match;
  });
}

function normalise(text: string): string {
  return text
    .replace(/\u0000/g, '')
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}
