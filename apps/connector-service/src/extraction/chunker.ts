export interface Chunk {
  index: number;
  text: string;
}

export const CHUNK_CHARS = 1200;
export const CHUNK_OVERLAP = 150;

/**
 * Splits text into overlapping chunks of about CHUNK_CHARS, cut at whitespace, so a phrase that
 * straddles a boundary is still whole in one chunk and a hit can quote its neighbourhood.
 */
export function chunkText(text: string, size = CHUNK_CHARS, overlap = CHUNK_OVERLAP): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const cut = text.lastIndexOf(' ', end);
      const newline = text.lastIndexOf('\n', end);
      const boundary = Math.max(cut, newline);
      if (boundary > start + size / 2) end = boundary;
    }
    const piece = text.slice(start, end).trim();
    if (piece) chunks.push({ index: chunks.length, text: piece });
    if (end >= text.length) break;
    start = Math.max(end - overlap, start + 1);
    const nextSpace = text.indexOf(' ', start);
    if (nextSpace !== -1 && nextSpace < end) start = nextSpace + 1;
  }
  return chunks;
}
