export interface Chunk {
  index: number;
  text: string;
  /** Where the chunk lies in the text it was cut from: `source.slice(start, end)` is its text (UTF-16 units; code points once laid out). */
  start: number;
  end: number;
}

export const CHUNK_CHARS = 1200;
export const CHUNK_OVERLAP = 150;
/**
 * The first chunk search reads. The ones before it end within the first 8 × CHUNK_CHARS characters
 * (normalised text has no blank-only stretch), which the document's own text vector (its first 10,000)
 * searches, so they are not stored (migration 1795300012000-document-search gives only these a vector).
 */
export const DEEP_CHUNKS_FROM = 8;

/**
 * Splits text into overlapping chunks of about CHUNK_CHARS, cut at whitespace, so a phrase that
 * straddles a boundary is still whole in one chunk and a hit can quote its neighbourhood.
 */
export function chunkText(text: string, size = CHUNK_CHARS, overlap = CHUNK_OVERLAP): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    // Blanks are looked for inside the chunk only: a search from `end` over text without one is quadratic.
    if (end < text.length) {
      const floor = Math.floor(start + size / 2) + 1;
      const tail = text.slice(floor, end + 1);
      const boundary = Math.max(tail.lastIndexOf(' '), tail.lastIndexOf('\n'));
      if (boundary !== -1) end = floor + boundary;
      else if (isHighSurrogate(text, end - 1)) end -= 1; // a character is never cut in two
    }
    const raw = text.slice(start, end);
    const piece = raw.trim();
    if (piece) {
      const from = start + (raw.length - raw.trimStart().length);
      chunks.push({ index: chunks.length, text: piece, start: from, end: from + piece.length });
    }
    if (end >= text.length) break;
    start = Math.max(end - overlap, start + 1);
    const nextSpace = text.slice(start, end).indexOf(' ');
    if (nextSpace !== -1) start += nextSpace + 1;
    else if (isHighSurrogate(text, start - 1)) start += 1;
  }
  return chunks;
}

function isHighSurrogate(text: string, at: number): boolean {
  const unit = text.charCodeAt(at);
  return unit >= 0xd800 && unit <= 0xdbff;
}
