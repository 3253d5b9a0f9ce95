/**
 * What one sync run did with one file. `Skipped`: not taken in (reason `TooLarge` or `Unsupported`);
 * `NoText`: stored, but its text extraction found no text (a scanned PDF); `Failed`: reason says why;
 * `Held`: the deletion guard kept its document (reason says why) until someone confirms, then `Deleted`.
 */
export const RUN_FILE_OUTCOMES = [
  'Added',
  'Updated',
  'Unchanged',
  'Deleted',
  'Held',
  'Skipped',
  'NoText',
  'Failed',
] as const;
export type RunFileOutcome = (typeof RUN_FILE_OUTCOMES)[number];

/** How many files below a folder had each outcome in the data source's latest run; outcomes with none are left out. */
export type RunFileOutcomeCounts = Partial<Record<RunFileOutcome, number>>;

export interface SyncRunFileView {
  externalId: string;
  /** Null when the file never became a document (it failed before its first save). */
  documentId: string | null;
  name: string;
  path: string;
  outcome: RunFileOutcome;
  /** `TooLarge` or `Unsupported` for Skipped, the failure for Failed, why the deletion is held for Held, else null. */
  reason: string | null;
}

/** `GET /v1/sync-runs/{id}/files`: a run's files in externalId order, a page at a time. */
export interface SyncRunFilesPageView {
  items: SyncRunFileView[];
  nextCursor: string | null;
}
