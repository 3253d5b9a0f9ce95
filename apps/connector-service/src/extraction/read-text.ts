import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { htmlText, jsonText, normalise } from './text-formats';
import { checkZipLimits, DOCX_LIMITS } from './zip-limits';

/** Runs in an extraction worker thread only: everything here may take as long or as much memory as the file demands. */

export type ExtractionKind = 'pdf' | 'docx' | 'text' | 'html' | 'json';

export interface ReadTextRequest {
  kind: ExtractionKind;
  content: Uint8Array;
  maxTextBytes: number;
}

/** The text is longer than allowed: the reason is the whole message. */
export const TEXT_TOO_LARGE = 'TextTooLarge';

const READERS: Record<ExtractionKind, (content: Buffer) => Promise<string>> = {
  async pdf(content) {
    return (await importPdfText()).pdfText(new Uint8Array(content));
  },
  async docx(content) {
    checkZipLimits(content, DOCX_LIMITS);
    const mammoth = await import('mammoth');
    return (await mammoth.extractRawText({ buffer: content })).value;
  },
  async text(content) {
    return content.toString('utf8');
  },
  async json(content) {
    return jsonText(content.toString('utf8'));
  },
  async html(content) {
    return htmlText(content.toString('utf8'));
  },
};

export async function readText({ kind, content, maxTextBytes }: ReadTextRequest): Promise<string> {
  const text = normalise(await READERS[kind](Buffer.from(content.buffer, content.byteOffset, content.byteLength)));
  if (Buffer.byteLength(text) > maxTextBytes)
    throw Object.assign(new Error(`Extracted text is larger than ${sizeInWords(maxTextBytes)}`), {
      name: TEXT_TOO_LARGE,
    });
  return text;
}

export function sizeInWords(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes.toLocaleString('en')} bytes`;
}

interface PdfTextModule {
  pdfText(data: Uint8Array): Promise<string>;
}

// A dynamic import that TypeScript's CommonJS output leaves alone (it would turn `import()` into `require`).
const importModule = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<PdfTextModule>;

function importPdfText(): Promise<PdfTextModule> {
  return importModule(pathToFileURL(join(__dirname, 'pdf-text.mjs')).href);
}
