// One file, one outcome per run: a document system may list one file (one id) in two folders, as a link does.
import type { FileEntry } from '../../document-system/document-system.adapter';
import type { PriorDocument, Relocation, RunSighting } from './plan-types';
import { FilePlan, sameContent, stampsOf } from './sync-plan';

/** A file listed again at the place its document had before this run moved it away: it goes back, unchanged. */
export interface ReturnedFile {
  file: FileEntry;
  path: string;
  move: Relocation;
}

/** The page's files this run has not taken yet: a file is taken (planned, counted, recorded) at its first listing. */
export function untaken(files: FileEntry[], sightings: ReadonlyMap<string, RunSighting>): FileEntry[] {
  return files.filter((file) => !sightings.has(file.id));
}

/**
 * Files this run took at another listing and moved from where their documents were, listed now at that place:
 * a document keeps its place while any listing of the run shows it there, whichever is listed first.
 */
export function returnedFiles(
  job: { folderId: string; path: string },
  files: FileEntry[],
  sightings: ReadonlyMap<string, RunSighting>,
  known: ReadonlyMap<string, PriorDocument>,
): ReturnedFile[] {
  return files.flatMap((file) => {
    const path = `${job.path}/${file.name}`;
    const sighting = sightings.get(file.id);
    const doc = known.get(file.id);
    if (sighting?.priorFolderId !== job.folderId || sighting.priorPath !== path) return [];
    if (!doc || !doc.stored || !sameContent(file, doc)) return [];
    return [{ file, path, move: { id: doc.id, name: file.name, path, folderId: job.folderId, ...stampsOf(file) } }];
  });
}

/** What the page records of its files: each file taken, with its document's earlier place if it moved; a returned one, none. */
export function pageSightings(
  files: FileEntry[],
  known: ReadonlyMap<string, PriorDocument>,
  plan: FilePlan,
  returned: ReturnedFile[],
): RunSighting[] {
  const moved = new Set(plan.relocated.map((m) => m.id));
  const taken = files.map((file) => {
    const doc = known.get(file.id);
    const from = doc && moved.has(doc.id) ? doc : null;
    return { externalId: file.id, priorFolderId: from?.folderId ?? null, priorPath: from?.path ?? null };
  });
  return [...taken, ...returned.map(({ file }) => ({ externalId: file.id, priorFolderId: null, priorPath: null }))];
}
