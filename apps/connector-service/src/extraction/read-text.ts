import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { htmlText, jsonText, normalise } from './text-formats';
import { checkZipLimits, DOCX_LIMITS } from './zip-limits';

/** Runs in an extraction process only: everything here may take as long or as much memory as the file demands. */

export type ExtractionKind = 'pdf' | 'docx' | 'text' | 'html' | 'json';

export interface ReadTextRequest {
  kind: ExtractionKind;
  content: Uint8Array;
  maxTextBytes: number;
}

/** Where a PDF page's text lies in the document's text: `text.slice(start, end)` (UTF-16 units), 1-based pages. */
export interface PageRange {
  page: number;
  start: number;
  end: number;
}

/** A file's text; `pages` for a PDF, empty for other formats. */
export interface ExtractedText {
  text: string;
  pages: PageRange[];
}

/** The text is longer than allowed: the reason is the whole message. */
export const TEXT_TOO_LARGE = 'TextTooLarge';

/** A format's text, or a PDF's text page by page. */
const READERS: Record<ExtractionKind, (content: Buffer) => Promise<string | string[]>> = {
  async pdf(content) {
    return (await importPdfText()).pdfPages(new Uint8Array(content));
  },
  async docx(content) {
    checkZipLimits(content, DOCX_LIMITS);
    const mammoth = await import('mammoth');
    return (await mammoth.extractRawText({ buffer: content })).value;
  },
  async text(content) {
    return decodedText(content);
  },
  async json(content) {
    return jsonText(decodedText(content));
  },
  async html(content) {
    return htmlText(decodedText(content));
  },
};

export async function readText({ kind, content, maxTextBytes }: ReadTextRequest): Promise<ExtractedText> {
  const read = await READERS[kind](Buffer.from(content.buffer, content.byteOffset, content.byteLength));
  const extracted = typeof read === 'string' ? { text: normalise(read), pages: [] } : joinPages(read);
  if (Buffer.byteLength(extracted.text) > maxTextBytes)
    throw Object.assign(new Error(`Extracted text is larger than ${sizeInWords(maxTextBytes)}`), {
      name: TEXT_TOO_LARGE,
    });
  return extracted;
}

/**
 * Each page normalised on its own and joined to the next by a line break, so that no page's text runs
 * into another's; an empty page has an empty range where it would have been. The result is as normal as
 * `normalise` makes any text.
 */
export function joinPages(pages: string[]): ExtractedText {
  const parts: string[] = [];
  const ranges: PageRange[] = [];
  let length = 0;
  pages.forEach((raw, i) => {
    const text = normalise(raw);
    if (text && length) {
      parts.push('\n');
      length += 1;
    }
    ranges.push({ page: i + 1, start: length, end: length + text.length });
    parts.push(text);
    length += text.length;
  });
  return { text: parts.join(''), pages: ranges };
}

/** Byte-order marks and what they mark: Windows tools write them, and Excel's "Unicode text" is UTF-16LE. */
const BYTE_ORDER_MARKS = [
  { mark: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { mark: [0xff, 0xfe], encoding: 'utf-16le' },
  { mark: [0xfe, 0xff], encoding: 'utf-16be' },
];

/** A text file's characters in the encoding its byte-order mark names, without the mark; UTF-8 without one. */
function decodedText(content: Buffer): string {
  const marked = BYTE_ORDER_MARKS.find(({ mark }) => mark.every((byte, i) => content[i] === byte));
  return marked ? new TextDecoder(marked.encoding).decode(content) : content.toString('utf8');
}

export function sizeInWords(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes.toLocaleString('en')} bytes`;
}

interface PdfTextModule {
  pdfPages(data: Uint8Array): Promise<string[]>;
}

// A dynamic import that TypeScript's CommonJS output leaves alone (it would turn `import()` into `require`).
const importModule = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<PdfTextModule>;

function importPdfText(): Promise<PdfTextModule> {
  return importModule(pathToFileURL(join(__dirname, 'pdf-text.mjs')).href);
}
