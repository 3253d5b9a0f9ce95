/** The sync-run state machine: the states and, for each, the states it may be entered from. */
import type { SyncCountsView, SyncRunStatus } from '@app/contracts/views';

export { SYNC_RUN_STATUSES } from '@app/contracts/views';
export type { SyncMode, SyncRunStatus } from '@app/contracts/views';

export const ACTIVE_RUN_STATUSES: SyncRunStatus[] = ['Queued', 'Running'];

export const SYNC_RUN_MOVES: Record<SyncRunStatus, SyncRunStatus[]> = {
  Queued: [],
  Running: ['Queued'],
  Succeeded: ['Running'],
  PartiallySucceeded: ['Running'],
  Failed: ['Queued', 'Running'],
  Cancelled: ['Queued', 'Running'],
};

export const COUNT_NAMES: Array<keyof SyncCountsView> = [
  'discovered',
  'added',
  'updated',
  'unchanged',
  'deleted',
  'failed',
  'skipped',
];

/**
 * How a finished run ends: a run limit reached makes it partial whatever else happened (CONTRACT.md, fair
 * share and limits); otherwise any failed file or listing makes it partial, and nothing done, Failed.
 */
export function outcomeOf(counts: SyncCountsView, failedListings: number, limitReached = false): SyncRunStatus {
  if (limitReached) return 'PartiallySucceeded';
  if (failedListings > 0) return counts.added + counts.updated + counts.unchanged > 0 ? 'PartiallySucceeded' : 'Failed';
  if (counts.failed === 0) return 'Succeeded';
  return counts.added + counts.updated + counts.unchanged > 0 ? 'PartiallySucceeded' : 'Failed';
}
