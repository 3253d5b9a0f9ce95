import { Chunk, chunkText, DEEP_CHUNKS_FROM } from './chunker';
import { codePointOffsets } from './code-points';
import type { PageRange } from './read-text';

/** Where a text's chunks and pages lie in it, in code points: what is saved with the text for passages. */
export interface TextLayout {
  /** The chunks stored as rows (index ≥ DEEP_CHUNKS_FROM). */
  deepChunks: Chunk[];
  /**
   * [start, end, byte start, byte end] of each chunk before those: the document keeps only their ranges.
   * The UTF-8 byte offsets let PostgreSQL cut a chunk out of the text without counting characters up to it.
   */
  openingChunks: Array<[number, number, number, number]>;
  /** A PDF's pages, page n at index n - 1; null for a text without pages. */
  pages: { starts: number[]; ends: number[] } | null;
}

/**
 * Cuts the text into chunks and says where they and the pages (UTF-16 ranges, as extracted) lie, in code
 * points. A PDF's pages are cut one by one, so that no chunk runs over a page break and a passage's page
 * is the whole passage's.
 */
export function layOut(text: string, pages: PageRange[]): TextLayout {
  const chunks = pages.length ? chunkPages(text, pages) : chunkText(text);
  const ranges = [...chunks, ...pages].flatMap((range) => [range.start, range.end]);
  const points = codePointOffsets(text, ranges);
  const placed = chunks.map((chunk, i) => ({ ...chunk, start: points[2 * i], end: points[2 * i + 1] }));
  const pageAt = (i: number, side: 0 | 1) => points[2 * (chunks.length + i) + side];
  return {
    deepChunks: placed.filter((chunk) => chunk.index >= DEEP_CHUNKS_FROM),
    openingChunks: openingRanges(text, chunks, placed),
    pages: pages.length ? { starts: pages.map((_, i) => pageAt(i, 0)), ends: pages.map((_, i) => pageAt(i, 1)) } : null,
  };
}

function openingRanges(text: string, chunks: Chunk[], placed: Chunk[]): TextLayout['openingChunks'] {
  const opening = chunks.filter((chunk) => chunk.index < DEEP_CHUNKS_FROM);
  const bytes = (unit: number) => Buffer.byteLength(text.slice(0, unit));
  return opening.map((chunk, i) => [placed[i].start, placed[i].end, bytes(chunk.start), bytes(chunk.end)]);
}

function chunkPages(text: string, pages: PageRange[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const page of pages)
    for (const chunk of chunkText(text.slice(page.start, page.end)))
      chunks.push({ ...chunk, index: chunks.length, start: page.start + chunk.start, end: page.start + chunk.end });
  return chunks;
}

/** The layout of no text (an extraction that failed or gave none). */
export const NO_LAYOUT: TextLayout = { deepChunks: [], openingChunks: [], pages: null };
