/**
 * What a click on a folder's checkbox does to the data source's include/exclude lists, following the
 * contract's rules: an included folder takes its whole subtree, an excluded folder inside it is left
 * out, and the nearest mark (the folder itself, else its closest marked ancestor) decides. Pure: no DOM.
 */
export type MarkMode = 'include' | 'exclude';
export type FolderSelectionState = 'Selected' | 'Partial' | 'None';

export interface Mark {
  folderId: string;
  mode: MarkMode;
  /** Ancestors of the folder, outermost first; not the folder itself. */
  ancestorIds: string[];
}

export interface FolderRef {
  id: string;
  ancestorIds: string[];
}

/** Whether the folder is taken, as decided by its own or its nearest marked ancestor's mark. */
export function isCovered(folder: FolderRef, marks: Mark[]): boolean {
  const lineage = [...folder.ancestorIds, folder.id];
  for (let i = lineage.length - 1; i >= 0; i--) {
    const mark = marks.find((m) => m.folderId === lineage[i]);
    if (mark) return mark.mode === 'include';
  }
  return false;
}

/** The state the server reports, computed the same way (for tests and for an instant display). */
export function stateOf(folder: FolderRef, marks: Mark[]): FolderSelectionState {
  const below = marks.filter((m) => m.ancestorIds.includes(folder.id));
  if (isCovered(folder, marks)) return below.some((m) => m.mode === 'exclude') ? 'Partial' : 'Selected';
  return below.some((m) => m.mode === 'include') ? 'Partial' : 'None';
}

/**
 * A click: a Selected folder is unchecked, a Partial or None folder is checked (all of it). Either way
 * the marks below it go, since the click decides the whole subtree.
 * - Checking: drop the folder's own exclude; include it unless an ancestor already covers it.
 * - Unchecking: drop the folder's own include; exclude it if an ancestor still covers it.
 */
export function toggle(folder: FolderRef, state: FolderSelectionState, marks: Mark[]): Mark[] {
  const kept = marks.filter((m) => m.folderId !== folder.id && !m.ancestorIds.includes(folder.id));
  const want = state !== 'Selected';
  if (isCovered(folder, kept) === want) return kept;
  return [...kept, { folderId: folder.id, mode: want ? 'include' : 'exclude', ancestorIds: folder.ancestorIds }];
}

export function selectionOf(marks: Mark[]): { include: string[]; exclude: string[] } {
  return {
    include: marks.filter((m) => m.mode === 'include').map((m) => m.folderId),
    exclude: marks.filter((m) => m.mode === 'exclude').map((m) => m.folderId),
  };
}
