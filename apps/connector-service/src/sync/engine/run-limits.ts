// A run's limits (CONTRACT.md, "Fair share and limits"): what of a listed page a run may still take.
import type { FileEntry, FolderEntry } from '../../document-system/document-system.adapter';
import { listedSize } from '../run-progress';
import type { LimitReached, ListedSoFar } from '../sync-run-steps';

/** SYNC_MAX_FILES, SYNC_MAX_BYTES, SYNC_MAX_PAGES and SYNC_MAX_DEPTH of one run. */
export interface RunLimits {
  maxFiles: number;
  maxBytes: number;
  maxPages: number;
  maxDepth: number;
}

export interface PageWithinLimits {
  folders: FolderEntry[];
  files: FileEntry[];
  nextCursor: string | null;
  limit: LimitReached | null;
}

/**
 * The longest path (UTF-8 bytes) a run keeps: a document's path is a btree entry (the path prefix search's and
 * the run's file list's indexes), which PostgreSQL refuses past 2,704 bytes, and failed the whole batch.
 */
export const MAX_PATH_BYTES = 2000;

/** The error a run that reached a limit ends with: its listing stopped there, or it left out only what passed. */
export function limitError(reached: string, listingStopped: boolean): string {
  const what = listingStopped
    ? 'the run stopped there, kept what it saw'
    : 'the run left out what passed it, kept the rest';
  return `RUN_LIMIT_REACHED: ${reached}: ${what} and deleted nothing`;
}

/**
 * The part of a page the run may take: files in listed order while the run stays within SYNC_MAX_FILES and
 * SYNC_MAX_BYTES (listed sizes); the first that does not fit stops the run's listing there (no subfolder, no
 * next page). Subfolders deeper than SYNC_MAX_DEPTH below the selected folder are left out; the rest goes on.
 * A page past SYNC_MAX_PAGES takes nothing and stops the run's listing. Files and subfolders whose path would
 * pass MAX_PATH_BYTES are left out as well, and the rest goes on. A run whose listing stopped takes nothing more.
 */
export function withinLimits(
  page: { path: string; folders: FolderEntry[]; files: FileEntry[]; nextCursor: string | null; depth: number },
  soFar: ListedSoFar,
  limits: RunLimits,
): PageWithinLimits {
  if (soFar.listingStopped) return { folders: [], files: [], nextCursor: null, limit: null };
  const fits = (entry: FileEntry | FolderEntry) => Buffer.byteLength(`${page.path}/${entry.name}`) <= MAX_PATH_BYTES;
  const folders = page.folders.filter(fits);
  const files = page.files.filter(fits);
  const pathLimit =
    folders.length < page.folders.length || files.length < page.files.length
      ? { reached: `path length (${MAX_PATH_BYTES} bytes)`, stopsListing: false }
      : null;
  return withinCounts({ ...page, folders, files }, soFar, limits, pathLimit);
}

/** The part of a page within SYNC_MAX_PAGES, SYNC_MAX_FILES, SYNC_MAX_BYTES and SYNC_MAX_DEPTH. */
function withinCounts(
  page: { folders: FolderEntry[]; files: FileEntry[]; nextCursor: string | null; depth: number },
  soFar: ListedSoFar,
  limits: RunLimits,
  pathLimit: LimitReached | null,
): PageWithinLimits {
  if (soFar.listedPages + 1 > limits.maxPages) {
    const reached = `SYNC_MAX_PAGES (${limits.maxPages} listing pages)`;
    return { folders: [], files: [], nextCursor: null, limit: { reached, stopsListing: true } };
  }
  let files = soFar.discovered;
  let bytes = soFar.listedBytes;
  const taken: FileEntry[] = [];
  for (const file of page.files) {
    const stop =
      files + 1 > limits.maxFiles
        ? `SYNC_MAX_FILES (${limits.maxFiles} files)`
        : bytes + listedSize(file) > limits.maxBytes
          ? bytesLimitReached(limits.maxBytes).reached
          : null;
    if (stop) return { folders: [], files: taken, nextCursor: null, limit: { reached: stop, stopsListing: true } };
    taken.push(file);
    files += 1;
    bytes += listedSize(file);
  }
  if (page.folders.length && page.depth + 1 > limits.maxDepth) {
    const reached = `SYNC_MAX_DEPTH (${limits.maxDepth} folder levels)`;
    return { folders: [], files: taken, nextCursor: page.nextCursor, limit: { reached, stopsListing: false } };
  }
  return { folders: page.folders, files: taken, nextCursor: page.nextCursor, limit: pathLimit };
}

/** SYNC_MAX_BYTES reached: the run's listing stops there. */
export function bytesLimitReached(maxBytes: number): LimitReached {
  return { reached: `SYNC_MAX_BYTES (${maxBytes} bytes)`, stopsListing: true };
}

/** What a batch may store of its downloads within SYNC_MAX_BYTES, and what that adds to the run's bytes. */
export interface StoredWithinLimit<F> {
  kept: F[];
  /** Not stored: each would have taken the run past SYNC_MAX_BYTES. */
  dropped: F[];
  /** The bytes beyond their listed sizes of the files kept, added to the run's listed bytes. */
  addedBytes: number;
  limit: LimitReached | null;
}

/**
 * A run counts the listed sizes against SYNC_MAX_BYTES as it lists, so a file listed without a size, or with
 * fewer bytes than it has, brings its other bytes to the run only once downloaded (`beyondListed`). Such a file
 * is kept if the run stays within the limit with it; one that does not fit is not stored, reaches the limit and
 * stops the run's listing, as a listed size past it would have. Files within their listed sizes cost nothing
 * more: their bytes were counted when they were listed.
 */
export function storedWithinLimit<F>(
  downloads: F[],
  beyondListed: (download: F) => number,
  listedBytes: number,
  maxBytes: number,
): StoredWithinLimit<F> {
  const kept: F[] = [];
  const dropped: F[] = [];
  let bytes = listedBytes;
  for (const download of downloads) {
    const more = beyondListed(download);
    if (more > 0 && bytes + more > maxBytes) dropped.push(download);
    else {
      kept.push(download);
      bytes += more;
    }
  }
  const limit = dropped.length ? bytesLimitReached(maxBytes) : null;
  return { kept, dropped, addedBytes: bytes - listedBytes, limit };
}
