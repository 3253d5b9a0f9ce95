import { ApiProperty } from '@nestjs/swagger';
import {
  DOCUMENT_EXTRACTION_STATUSES,
  DocumentExtractionStatus,
  DocumentTextView,
  DocumentView,
  ExtractionView,
  PageRangeView,
  PassagesView,
  PassageView,
  SearchHitView,
  SearchPageView,
  TreeFileView,
  TreeFolderView,
  TreePageView,
} from '../views/document.view';
import { RunFileOutcomeCountsResponse } from './sync-run-file.responses';

export class ExtractionResponse implements ExtractionView {
  @ApiProperty({ enum: DOCUMENT_EXTRACTION_STATUSES })
  status: DocumentExtractionStatus;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class DocumentResponse implements DocumentView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  dataSourceId: string;

  @ApiProperty()
  externalId: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty()
  mimeType: string;

  @ApiProperty()
  size: number;

  @ApiProperty({ type: String, nullable: true })
  version: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  modifiedAt: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Null when the content was not stored' })
  contentSha256: string | null;

  @ApiProperty({ type: () => ExtractionResponse })
  extraction: ExtractionResponse;

  @ApiProperty({ format: 'date-time' })
  ingestedAt: string;
}

export class PageRangeResponse implements PageRangeView {
  @ApiProperty({ minimum: 1, example: 12 })
  page: number;

  @ApiProperty({ description: 'Character offset (code points) in the text where the page begins' })
  start: number;

  @ApiProperty({ description: 'Character offset where it ends (exclusive); equal to start for an empty page' })
  end: number;
}

export class DocumentTextResponse implements DocumentTextView {
  @ApiProperty({ format: 'uuid' })
  documentId: string;

  @ApiProperty({ format: 'uuid' })
  dataSourceId: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty({ type: () => ExtractionResponse })
  extraction: ExtractionResponse;

  @ApiProperty()
  text: string;

  @ApiProperty({
    type: () => [PageRangeResponse],
    description:
      "A PDF's pages in order, where each lies in `text` (code points: `[...text].slice(start, end)` in " +
      'JavaScript); empty for other files, and for a PDF extracted before pages were kept until it is laid out again',
  })
  pages: PageRangeResponse[];
}

export class TreeFolderResponse implements TreeFolderView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty({ type: String, nullable: true })
  parentId: string | null;

  @ApiProperty({
    type: () => RunFileOutcomeCountsResponse,
    description: "The latest run's outcomes for the files below this folder, at any depth; outcomes with none left out",
  })
  outcomes: RunFileOutcomeCountsResponse;
}

export class TreeFileResponse implements TreeFileView {
  @ApiProperty({ format: 'uuid' })
  documentId: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty()
  size: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  modifiedAt: string | null;

  @ApiProperty({ enum: ['Ingested', 'Skipped'], description: 'Skipped: listed, its content not stored' })
  status: 'Ingested' | 'Skipped';

  @ApiProperty({ enum: DOCUMENT_EXTRACTION_STATUSES })
  extractionStatus: DocumentExtractionStatus;
}

export class TreePageResponse implements TreePageView {
  @ApiProperty({ type: () => TreeFolderResponse, nullable: true, description: 'Null at the root (the workgroups)' })
  folder: TreeFolderResponse | null;

  @ApiProperty({ type: () => [TreeFolderResponse] })
  folders: TreeFolderResponse[];

  @ApiProperty({ type: () => [TreeFileResponse] })
  files: TreeFileResponse[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}

export class SearchHitResponse implements SearchHitView {
  @ApiProperty({ format: 'uuid' })
  documentId: string;

  @ApiProperty({ format: 'uuid' })
  dataSourceId: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty()
  mimeType: string;

  @ApiProperty({ description: 'The first matching passage, matches between <mark> and </mark>' })
  snippet: string;

  @ApiProperty()
  score: number;

  @ApiProperty({ example: '/v1/documents/{id}/text' })
  textUrl: string;

  @ApiProperty({ example: '/v1/documents/{id}/content' })
  contentUrl: string;
}

export class SearchPageResponse implements SearchPageView {
  @ApiProperty({ type: () => [SearchHitResponse] })
  hits: SearchHitResponse[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}

export class PassageResponse implements PassageView {
  @ApiProperty({ format: 'uuid' })
  documentId: string;

  @ApiProperty({ format: 'uuid' })
  dataSourceId: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty({
    description: "The chunk's text, the document's text from start to end (cut short when maxChars ran out)",
  })
  text: string;

  @ApiProperty({
    description: 'Character offset (Unicode code points) in the text GET /v1/documents/{id}/text returns',
  })
  start: number;

  @ApiProperty({ description: 'Character offset where the passage ends (exclusive)' })
  end: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The PDF page (1-based) where start lies; null for other files',
  })
  page: number | null;

  @ApiProperty({ description: 'How well the passage matches (cover density); higher is better' })
  score: number;
}

export class PassagesResponse implements PassagesView {
  @ApiProperty({ type: () => [PassageResponse], description: 'Best first' })
  passages: PassageResponse[];

  @ApiProperty({ description: 'A passage was cut short, or left out, to keep the text within maxChars' })
  truncated: boolean;
}
