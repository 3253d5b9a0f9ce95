/** Documents under one selection root (null: outside the selection now), and how many of them a run did not see. */
export interface RootTally {
  root: string | null;
  path: string | null;
  documents: number;
  unseen: number;
}

/** Why a run holds its deletions: for the run (said once, in an admin's words) and for each file held. */
export interface HoldReason {
  /** The run's `error`: what is kept, why, and what to do. */
  error: string;
  /** The ledger's `reason` of each file held. */
  fileReason: string;
}

/** What a run that holds deletions asks of an admin. */
export const CONFIRM_ASKED = 'They are kept until you confirm their deletion.';
/** What it says instead once a later run took the decision over (nothing was deleted). */
export const DECISION_RELEASED = 'They were kept: a later sync decides their deletion afresh.';

/**
 * Why a run must hold its deletions, or null when it may apply them. Only documents still under the
 * selection count, on both sides (dropping what a user deselected is that user's decision, never held, and it
 * must not dilute the rest): the run holds when they are more than `percent` percent of the documents under the
 * selection, or when every document under a selected folder is gone (the folder was deleted, or lists nothing).
 */
export function holdReason(tallies: RootTally[], percent: number): HoldReason | null {
  const selected = tallies.filter((t) => t.root !== null);
  const vanishing = selected.reduce((sum, t) => sum + t.unseen, 0);
  const documents = selected.reduce((sum, t) => sum + t.documents, 0);
  if (vanishing === 0) return null;
  // What a user deselected is dropped all the same (DeletionGuard): only what vanished from the selection is kept.
  const kept = `${vanishing} ${vanishing === 1 ? 'document is' : 'documents are'} no longer in the document system`;
  const ask = CONFIRM_ASKED;
  const vanished = selected.filter((t) => t.documents > 0 && t.unseen === t.documents);
  if (vanished.length) {
    const folders = vanished.map((t) => t.path ?? t.root).join(', ');
    const which =
      vanished.length === 1
        ? `the selected folder ${folders} is gone or empty`
        : `the selected folders ${folders} are gone or empty`;
    return { error: `${kept}: ${which}. ${ask}`, fileReason: 'Its selected folder is gone or empty' };
  }
  if (vanishing * 100 > percent * documents) {
    return {
      error: `${kept}: that is ${vanishing} of ${documents} documents, more than the ${percent}% a sync deletes on its own. ${ask}`,
      fileReason: `More than ${percent}% of the documents would go at once`,
    };
  }
  return null;
}
