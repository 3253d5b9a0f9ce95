// The planner's own words for what it reads and what it decides. The documents repository takes and gives
// the same shapes, so the planner needs nothing from it.

/** A listed file's document as earlier runs left it: what the listing is compared with. */
export interface PriorDocument {
  id: string;
  folderId: string;
  name: string;
  path: string;
  size: number;
  version: string | null;
  modifiedAt: Date | null;
  remoteSha256: string | null;
  /** False when its content was not stored (Skipped): a later run looks at it again. */
  stored: boolean;
  lastSeenRunId: string;
}

/** A document whose file moved, was renamed or has a new version or time with the same content: no download. */
export interface Relocation {
  id: string;
  name: string;
  path: string;
  folderId: string;
  version: string | null;
  modifiedAt: string | null;
}

/** A file the run took from a listing, and where its document was before the run moved it (null: not moved). */
export interface RunSighting {
  externalId: string;
  priorFolderId: string | null;
  priorPath: string | null;
}

/** A downloaded file's document, as a step saves it. */
export interface DocumentToSave {
  tenantId: string;
  dataSourceId: string;
  externalId: string;
  folderId: string;
  name: string;
  path: string;
  mimeType: string;
  size: number;
  version: string | null;
  modifiedAt: string | null;
  remoteSha256: string | null;
  contentSha256: string;
  lastSeenRunId: string;
}

/** A listed file whose content is not stored (larger than MAX_FILE_BYTES). */
export type SkippedDocumentToSave = Omit<DocumentToSave, 'contentSha256'>;
