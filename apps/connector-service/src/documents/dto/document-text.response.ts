import type { DocumentTextView } from '@app/contracts/views';
import type { StoredText } from '../document-texts.repository';

/** GET /v1/documents/{id}/text as JSON bytes, produced as its text's slices come. */
export interface DocumentTextAnswer {
  byteLength: number;
  etag: string;
  pieces: AsyncIterable<Buffer>;
}

/**
 * Byte for byte what JSON.stringify gives for the DocumentTextView, without the whole text in memory: each
 * slice is escaped on its own, which is the same as escaping the whole as long as no slice splits a
 * surrogate pair (PostgreSQL's substr cuts between code points).
 */
export function documentTextResponse(text: StoredText, slices: AsyncIterable<string>): DocumentTextAnswer {
  const head = {
    documentId: text.documentId,
    dataSourceId: text.dataSourceId,
    name: text.name,
    path: text.path,
    extraction: { status: text.extractionStatus, error: text.extractionError },
  } satisfies Omit<DocumentTextView, 'text' | 'pages'>;
  const before = Buffer.from(`${JSON.stringify(head).slice(0, -1)},"text":"`);
  const after = Buffer.from(`","pages":${JSON.stringify(text.pages)}}`);
  const byteLength = before.length + text.jsonBytes + after.length;
  async function* pieces(): AsyncGenerator<Buffer> {
    yield before;
    for await (const slice of slices) yield Buffer.from(JSON.stringify(slice).slice(1, -1));
    yield after;
  }
  return { byteLength, etag: `W/"${byteLength.toString(16)}-${text.version}"`, pieces: pieces() };
}
