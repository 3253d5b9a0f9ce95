import type { RunFileOutcomeCounts } from './sync-run-file.view';

/**
 * `Pending` from ingestion until its text is extracted; `Skipped` when the content was not stored
 * (larger than MAX_FILE_BYTES, error `TooLarge`); `Failed` past an extraction limit, with the reason.
 */
export const DOCUMENT_EXTRACTION_STATUSES = ['Pending', 'Succeeded', 'Unsupported', 'Failed', 'Skipped'] as const;
export type DocumentExtractionStatus = (typeof DOCUMENT_EXTRACTION_STATUSES)[number];

export interface ExtractionView {
  status: DocumentExtractionStatus;
  error: string | null;
}

export interface DocumentView {
  id: string;
  dataSourceId: string;
  externalId: string;
  name: string;
  path: string;
  mimeType: string;
  size: number;
  version: string | null;
  modifiedAt: string | null;
  contentSha256: string | null;
  extraction: ExtractionView;
  ingestedAt: string;
}

/**
 * Where a PDF page's text lies in the document's text: `start` and `end` count characters (Unicode code
 * points, as Python and PostgreSQL do; in JavaScript, `[...text].slice(start, end)`).
 */
export interface PageRangeView {
  /** 1-based. */
  page: number;
  start: number;
  end: number;
}

/** `GET /v1/documents/{id}/text`: the extracted text, with what an agent needs to cite it. */
export interface DocumentTextView {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  extraction: ExtractionView;
  text: string;
  /** A PDF's pages in order (an empty page has start = end); empty for other files. */
  pages: PageRangeView[];
}

/** A folder of the ingested hierarchy. */
export interface TreeFolderView {
  id: string;
  name: string;
  path: string;
  parentId: string | null;
  /** The outcomes of the data source's latest run for the files below this folder (at any depth). */
  outcomes: RunFileOutcomeCounts;
}

export interface TreeFileView {
  documentId: string;
  name: string;
  path: string;
  size: number;
  modifiedAt: string | null;
  /** `Skipped`: listed but its content not stored (too large). */
  status: 'Ingested' | 'Skipped';
  extractionStatus: DocumentExtractionStatus;
}

/** `GET /v1/data-sources/{id}/tree`: a folder's subfolders first, then its files, a page at a time. */
export interface TreePageView {
  /** The folder asked for; null at the root (the workgroups). */
  folder: TreeFolderView | null;
  folders: TreeFolderView[];
  files: TreeFileView[];
  nextCursor: string | null;
}

export interface SearchHitView {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  mimeType: string;
  /** The first matching passage, matches between `<mark>` and `</mark>` in otherwise raw text. */
  snippet: string;
  score: number;
  textUrl: string;
  contentUrl: string;
}

export interface SearchPageView {
  hits: SearchHitView[];
  nextCursor: string | null;
}

/** A best-matching chunk of a document's text, where it lies in that text and, for a PDF, on which page. */
export interface PassageView {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  /** The chunk's text (cut short when `maxChars` ran out): the document's text from `start` to `end`. */
  text: string;
  /** Character offsets (code points) in the text `GET /v1/documents/{id}/text` returns. */
  start: number;
  end: number;
  /** The PDF page (1-based) where `start` lies; null for other files. */
  page: number | null;
  score: number;
}

/** `GET /v1/projects/{projectId}/passages`: best first, their text within `maxChars` in all. */
export interface PassagesView {
  passages: PassageView[];
  /** A passage was cut short, or left out, to keep within `maxChars`. */
  truncated: boolean;
}
