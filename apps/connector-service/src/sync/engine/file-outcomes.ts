// What each step tells the file ledger: the pure mapping from a step's decisions to ledger rows.
import type { FileEntry } from '../../document-system/document-system.adapter';
import { LedgerEntry, shortReason } from '../../file-ledger/ledger-entry';
import type { FetchedFile, SkippedFile } from './file-downloads';
import type { PriorDocument } from './plan-types';
import type { ReturnedFile } from './run-sightings';
import type { FilePlan } from './sync-plan';
import type { FileToIngest } from '../sync.jobs';

/** A listed page's files that need no download: unchanged, or moved and renamed (counted as updated). */
export function listedOutcomes(
  path: string,
  files: FileEntry[],
  known: ReadonlyMap<string, PriorDocument>,
  plan: FilePlan,
): LedgerEntry[] {
  const unchanged = new Set(plan.unchanged);
  const moved = new Set(plan.relocated.map((m) => m.id));
  return files.flatMap((file) => {
    const doc = known.get(file.id);
    const outcome = unchanged.has(file.id) ? 'Unchanged' : doc && moved.has(doc.id) ? 'Updated' : null;
    if (!outcome) return [];
    const entry: LedgerEntry = {
      externalId: file.id,
      name: file.name,
      path: `${path}/${file.name}`,
      outcome,
      reason: null,
    };
    return [{ ...entry, documentId: doc!.id }];
  });
}

/** Files moved by an earlier listing of the run and listed again where they were: unchanged after all. */
export function returnedOutcomes(returned: ReturnedFile[]): LedgerEntry[] {
  return returned.map(({ file, path, move }) => ({
    externalId: file.id,
    documentId: move.id,
    name: file.name,
    path,
    outcome: 'Unchanged' as const,
    reason: null,
  }));
}

/** A batch's downloads: stored (added or updated), skipped as too large, and those that failed for good. */
export function ingestedOutcomes(
  fetched: FetchedFile[],
  skipped: SkippedFile[],
  failedForGood: Array<{ file: FileToIngest; error: unknown }>,
): LedgerEntry[] {
  return [
    ...fetched.map(({ file, blob }) => ({
      ...entryOf(file),
      outcome: file.change === 'added' ? ('Added' as const) : ('Updated' as const),
      contentSha256: blob.sha256,
    })),
    ...skipped.map(({ file }) => ({ ...entryOf(file), outcome: 'Skipped' as const, reason: 'TooLarge' })),
    ...failedOutcomes(failedForGood),
  ];
}

/** Files not stored because the run reached a limit with them: failed, with the limit as the reason. */
export function notStoredOutcomes(files: FileToIngest[], reason: string): LedgerEntry[] {
  return files.map((file) => ({ ...entryOf(file), outcome: 'Failed' as const, reason }));
}

export function failedOutcomes(failures: Array<{ file: FileToIngest; error: unknown }>): LedgerEntry[] {
  return failures.map(({ file, error }) => ({
    ...entryOf(file),
    outcome: 'Failed' as const,
    reason: shortReason(error),
  }));
}

/** The documents a run dropped because it no longer saw their files. */
export function deletedOutcomes(
  dropped: Array<{ id: string; externalId: string; name: string; path: string }>,
): LedgerEntry[] {
  return dropped.map((d) => ({
    externalId: d.externalId,
    documentId: d.id,
    name: d.name,
    path: d.path,
    outcome: 'Deleted' as const,
    reason: null,
  }));
}

/** The documents whose deletion a run holds until someone confirms it (`reason`: why it holds them). */
export function heldOutcomes(
  held: Array<{ id: string; externalId: string; name: string; path: string }>,
  reason: string,
): LedgerEntry[] {
  return deletedOutcomes(held).map((entry) => ({ ...entry, outcome: 'Held' as const, reason }));
}

function entryOf(file: FileToIngest): Omit<LedgerEntry, 'outcome'> {
  return { externalId: file.fileId, name: file.name, path: file.path, reason: null };
}
