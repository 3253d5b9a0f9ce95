/**
 * The folder-selection rules, in one pure module shared by the connector-service and the console. An
 * included folder takes its whole subtree; an excluded folder inside it is left out; an included folder
 * inside an excluded one is taken again. The nearest explicit mark (the folder itself, else its closest
 * marked ancestor) decides coverage.
 */
export type MarkMode = 'include' | 'exclude';
export type FolderSelectionState = 'Selected' | 'Partial' | 'None';

export interface SelectionMark {
  folderId: string;
  /** Ids of the folder's ancestors, outermost (workgroup root) first; not the folder itself. */
  ancestorIds: string[];
  mode: MarkMode;
  /** The folder's name when it was selected, for people to read; the rules never use it. */
  name?: string | null;
}

/** A folder where it stands: its id and its ancestors, outermost first. */
export interface FolderRef {
  id: string;
  ancestorIds: string[];
}

/** What `PUT /v1/data-sources/{id}/selection` takes and a data source shows: the marked folders' ids. */
export interface Selection {
  include: string[];
  exclude: string[];
}

/** Whether a folder at `lineage` (ancestors outermost first, then the folder itself) is covered. */
export function isCovered(lineage: string[], marks: SelectionMark[]): boolean {
  const byId = new Map(marks.map((m) => [m.folderId, m.mode]));
  for (let i = lineage.length - 1; i >= 0; i--) {
    const mode = byId.get(lineage[i]);
    if (mode) return mode === 'include';
  }
  return false;
}

/** Selected when its whole subtree is covered, Partial when only part is, None otherwise. */
export function folderState(folderId: string, ancestorIds: string[], marks: SelectionMark[]): FolderSelectionState {
  const below = marks.filter((m) => m.ancestorIds.includes(folderId));
  if (isCovered([...ancestorIds, folderId], marks)) {
    return below.some((m) => m.mode === 'exclude') ? 'Partial' : 'Selected';
  }
  return below.some((m) => m.mode === 'include') ? 'Partial' : 'None';
}

/**
 * The folders a sync walks from: each included folder not already covered by an included ancestor.
 * A walker descends from each root and stops at excluded folders; includes inside those are roots too.
 */
export function syncRoots(marks: SelectionMark[]): SelectionMark[] {
  return marks.filter((m) => m.mode === 'include' && !isCovered(m.ancestorIds, marks));
}

export function excludedIds(marks: SelectionMark[]): Set<string> {
  return new Set(marks.filter((m) => m.mode === 'exclude').map((m) => m.folderId));
}

/**
 * A click on a folder's checkbox: a Selected folder is unchecked, a Partial or None folder is checked
 * (all of it). Either way the marks below it go, since the click decides the whole subtree.
 * - Checking: drop the folder's own exclude; include it unless an ancestor already covers it.
 * - Unchecking: drop the folder's own include; exclude it if an ancestor still covers it.
 */
export function toggle(folder: FolderRef, state: FolderSelectionState, marks: SelectionMark[]): SelectionMark[] {
  const kept = marks.filter((m) => m.folderId !== folder.id && !m.ancestorIds.includes(folder.id));
  const want = state !== 'Selected';
  if (isCovered([...folder.ancestorIds, folder.id], kept) === want) return kept;
  return [...kept, { folderId: folder.id, mode: want ? 'include' : 'exclude', ancestorIds: folder.ancestorIds }];
}

/** The include and exclude lists the marks stand for. */
export function selectionOf(marks: SelectionMark[]): Selection {
  return {
    include: marks.filter((m) => m.mode === 'include').map((m) => m.folderId),
    exclude: marks.filter((m) => m.mode === 'exclude').map((m) => m.folderId),
  };
}
