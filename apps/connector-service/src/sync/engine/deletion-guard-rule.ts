import type { RootTally } from './held-deletions.repository';

/**
 * Why a run must hold its deletions, or null when it may apply them. Only documents still under the
 * selection count (dropping what a user deselected is that user's decision): the run holds when they are
 * more than `percent` percent of the data source's documents, or when every document under a selected
 * folder is gone (the folder was deleted, or lists nothing).
 */
export function holdReason(tallies: RootTally[], percent: number): string | null {
  const selected = tallies.filter((t) => t.root !== null);
  const unseen = tallies.reduce((sum, t) => sum + t.unseen, 0);
  const vanishing = selected.reduce((sum, t) => sum + t.unseen, 0);
  const documents = tallies.reduce((sum, t) => sum + t.documents, 0);
  if (vanishing === 0) return null;
  const held = `${unseen} deletion(s) held until confirmed (POST /v1/sync-runs/{id}/confirm-deletions)`;
  const vanished = selected.filter((t) => t.documents > 0 && t.unseen === t.documents);
  if (vanished.length) {
    const folders = vanished.map((t) => t.path ?? t.root).join(', ');
    return `${held}: the selected folder(s) ${folders} vanished or list nothing`;
  }
  if (vanishing * 100 > percent * documents) {
    return `${held}: the run would delete ${vanishing} of ${documents} documents, more than DELETE_GUARD_PERCENT (${percent}%)`;
  }
  return null;
}
