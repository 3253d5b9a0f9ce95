export const SYNC_RUN_STATUSES = [
  'Queued',
  'Running',
  'Succeeded',
  'PartiallySucceeded',
  'Failed',
  'Cancelled',
] as const;
export type SyncRunStatus = (typeof SYNC_RUN_STATUSES)[number];
export type EndedSyncRunStatus = Exclude<SyncRunStatus, 'Queued' | 'Running'>;
export const SYNC_MODES = ['Full', 'Incremental'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface SyncCountsView {
  discovered: number;
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
  /** Files listed but not stored (larger than MAX_FILE_BYTES). */
  skipped: number;
}

/** What the run's listing found: known once no folder listing of the run is pending any more. */
export interface SyncRunTotalsView {
  files: number;
  bytes: number;
}

export interface SyncRunView {
  id: string;
  dataSourceId: string;
  mode: SyncMode;
  status: SyncRunStatus;
  counts: SyncCountsView;
  bytesDownloaded: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  /** Null until the listing is complete. */
  totals: SyncRunTotalsView | null;
  /** Seconds left by the estimate: null while unknown, 0 once the run has ended. */
  etaSeconds: number | null;
  /** Deletions the deletion guard holds until they are confirmed; 0 when none are held. */
  deletionsHeld: number;
}

/** `POST /v1/data-sources/{id}/sync` (202). */
export interface SyncStartView {
  syncRunId: string;
  mode: SyncMode;
}

/** `POST /v1/sync-runs/{id}/confirm-deletions` (200). */
export interface DeletionsConfirmedView {
  deleted: number;
}
