/**
 * A data source's ingestion status and the moves allowed between them (CONTRACT.md):
 * NotConfigured → Pending → Syncing → Synced | PartiallySynced | Failed | NeedsReauth.
 */
import type { IngestionStatus } from '@app/contracts/views';

export { INGESTION_STATUSES } from '@app/contracts/views';
export type { IngestionStatus };

const SETTLED: IngestionStatus[] = ['Synced', 'PartiallySynced', 'Failed', 'NeedsReauth'];

/** For each target status, the statuses it may be entered from. */
export const INGESTION_MOVES: Record<IngestionStatus, IngestionStatus[]> = {
  // Selection cleared or discarded (credential change, different document-system user).
  NotConfigured: ['Pending', 'Syncing', ...SETTLED, 'NotConfigured'],
  // A selection was saved before the first sync. (A new authorization, or a cancelled first sync, moves to
  // Pending in SQL of its own: to where the latest completed run left it, Pending only when there is none.)
  Pending: ['NotConfigured', 'Pending'],
  Syncing: ['Pending', ...SETTLED],
  // From NeedsReauth once authorized again, when a run has completed before (its documents are there); from
  // PartiallySynced when the deletions its latest run held are confirmed.
  Synced: ['Syncing', 'NeedsReauth', 'PartiallySynced'],
  PartiallySynced: ['Syncing', 'NeedsReauth'],
  Failed: ['Syncing'],
  // The connection's refresh failed; from anywhere but NotConfigured.
  NeedsReauth: ['Pending', 'Syncing', 'Synced', 'PartiallySynced', 'Failed', 'NeedsReauth'],
};
