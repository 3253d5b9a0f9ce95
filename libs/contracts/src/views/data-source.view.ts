import type { FolderSelectionState, MarkMode, Selection } from './selection-rules';

/** NotConfigured → Pending → Syncing → Synced | PartiallySynced | Failed | NeedsReauth (CONTRACT.md). */
export const INGESTION_STATUSES = [
  'NotConfigured',
  'Pending',
  'Syncing',
  'Synced',
  'PartiallySynced',
  'Failed',
  'NeedsReauth',
] as const;
export type IngestionStatus = (typeof INGESTION_STATUSES)[number];

/**
 * A mark with its folder's ancestors (outermost first), so a picker can tell which marks lie below a folder,
 * and its name when it was selected (null for marks saved before names were kept).
 */
export interface SelectionMarkView {
  folderId: string;
  mode: MarkMode;
  ancestorIds: string[];
  name: string | null;
}

export interface DataSourceView {
  id: string;
  projectId: string;
  name: string;
  credentialId: string;
  connectionId: string;
  selection: Selection;
  selectionMarks: SelectionMarkView[];
  schedule: { intervalMinutes: number } | null;
  ingestionStatus: IngestionStatus;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** `done`: extraction ended without failure (text extracted, or unsupported, or not stored); `failed`: past a limit or unreadable. */
export interface ExtractionProgressView {
  done: number;
  pending: number;
  failed: number;
}

/** `GET /v1/data-sources/{id}`: with where the text extraction of its documents stands. */
export interface DataSourceDetailView extends DataSourceView {
  /** Documents whose text is still being extracted (searchable by name meanwhile). */
  pendingExtractions: number;
  extraction: ExtractionProgressView;
}

export interface MemberView {
  userId: string;
  addedBy: string;
  createdAt: string;
}

/** A folder in the folder picker (the document system's folders, not what was synced). */
export interface PickerFolderView {
  id: string;
  name: string;
  path: string;
  hasChildren: boolean;
  selection: FolderSelectionState;
}

export interface PickerPageView {
  items: PickerFolderView[];
  nextCursor: string | null;
  /** Why the page is empty, when the account sees no workgroups; or why it is partial. */
  notice?: string;
  /**
   * Present (true) when the request reached its bound of document-system calls or time before it had looked
   * into every folder: those show `hasChildren: true`, and opening one shows what it holds.
   */
  partial?: boolean;
}
