// The pure decisions of a sync run: which tasks a listing makes, which files to download, how they are saved.
import { sha256Hex } from '@app/crypto';
import type { StoredBlob } from '../../blobs/blob-store';
import type { DataSourceEntity } from '../../data-sources/data-source.entity';
import type { ChildEntry, FileEntry, FolderEntry, Page } from '../../document-system/document-system.adapter';
import { excludedIds, SelectionMark } from '@app/contracts/views';
import type { SkippedFile } from './file-downloads';
import type { DocumentToSave, PriorDocument, Relocation, SkippedDocumentToSave } from './plan-types';
import {
  FileToIngest,
  INGEST_BATCH_BYTES,
  INGEST_BATCH_FILES,
  ListFolderJob,
  SyncJobName,
  SyncTask,
} from '../sync.jobs';

export function listTask(
  syncRunId: string,
  folderId: string,
  path: string,
  cursor?: string,
  depth = 0,
): SyncTask<SyncJobName.ListFolder> {
  const key = cursor ? `folder:${folderId}:${sha256Hex(cursor).slice(0, 16)}` : `folder:${folderId}`;
  const data = { syncRunId, folderId, path, ...(cursor ? { cursor } : {}), ...(depth ? { depth } : {}) };
  return { key, name: SyncJobName.ListFolder, data };
}

export function ingestTask(syncRunId: string, files: FileToIngest[]): SyncTask {
  // The same file listed twice in one run (moved while listing) lands in two batches; its document is upserted once.
  const key = `files:${sha256Hex(files.map((f) => f.fileId).join('\n')).slice(0, 24)}`;
  return { key, name: SyncJobName.IngestFiles, data: { syncRunId, files } };
}

/**
 * A listed page's entries that sync takes: its files, and its subfolders the selection does not exclude; an
 * id listed twice on the page is taken once (its first listing), as one row takes it.
 */
export function pageEntries(
  page: Page<ChildEntry>,
  selection: SelectionMark[],
): { folders: FolderEntry[]; files: FileEntry[] } {
  const excluded = excludedIds(selection);
  const folders = firstOfEachId(page.items.filter((c): c is FolderEntry => c.kind === 'folder' && !excluded.has(c.id)));
  const files = firstOfEachId(page.items.filter((c): c is FileEntry => c.kind === 'file'));
  return { folders, files };
}

function firstOfEachId<T extends { id: string }>(entries: T[]): T[] {
  const seen = new Set<string>();
  return entries.filter((entry) => !seen.has(entry.id) && !!seen.add(entry.id));
}

/** A page's new tasks: its subfolders' listings, its downloads in batches, and the folder's next page (if any). */
export function pageTasks(
  job: ListFolderJob,
  folders: FolderEntry[],
  ingest: FileToIngest[],
  nextCursor: string | null,
): { tasks: SyncTask[]; nextPage: SyncTask<SyncJobName.ListFolder> | null } {
  const depth = job.depth ?? 0;
  const nextPage = nextCursor ? listTask(job.syncRunId, job.folderId, job.path, nextCursor, depth) : null;
  const tasks: SyncTask[] = [
    ...folders.map((f) => listTask(job.syncRunId, f.id, `${job.path}/${f.name}`, undefined, depth + 1)),
    ...batches(ingest).map((files) => ingestTask(job.syncRunId, files)),
    ...(nextPage ? [nextPage] : []),
  ];
  return { tasks, nextPage };
}

/** Consecutive files in batches of at most INGEST_BATCH_FILES files and INGEST_BATCH_BYTES bytes (a bigger file goes alone). */
export function batches(files: FileToIngest[]): FileToIngest[][] {
  const out: FileToIngest[][] = [];
  let current: FileToIngest[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = file.size ?? INGEST_BATCH_BYTES;
    if (current.length && (current.length >= INGEST_BATCH_FILES || bytes + size > INGEST_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

/**
 * A retried batch skips the files this run already saved: the document carries the listed version. A
 * skipped file's document may carry it from an earlier run, so that one counts once this run saved it; and
 * a file listed with no version, time or checksum counts once this run saved it (it is downloaded and
 * counted once per run, not once per attempt).
 */
export function savedByThisRun(syncRunId: string, file: FileToIngest, doc: PriorDocument | undefined): boolean {
  if (!doc) return false;
  const same = contentMatch(file, doc);
  // Nothing tells one content from another: what this run saved of the file is what this listing gave.
  if (same === null) return doc.lastSeenRunId === syncRunId;
  return same && (doc.stored || doc.lastSeenRunId === syncRunId);
}

export function ingestedDocument(
  source: DataSourceEntity,
  syncRunId: string,
  file: FileToIngest,
  blob: StoredBlob,
  mimeType: string,
): DocumentToSave {
  return {
    tenantId: source.tenantId,
    dataSourceId: source.id,
    externalId: file.fileId,
    folderId: file.folderId,
    name: file.name,
    path: file.path,
    mimeType,
    size: blob.size,
    version: file.version ?? null,
    modifiedAt: file.modifiedAt ?? null,
    remoteSha256: file.sha256 ?? null,
    contentSha256: blob.sha256,
    lastSeenRunId: syncRunId,
  };
}

export function skippedDocument(
  source: DataSourceEntity,
  syncRunId: string,
  { file, size }: SkippedFile,
): SkippedDocumentToSave {
  return {
    tenantId: source.tenantId,
    dataSourceId: source.id,
    externalId: file.fileId,
    folderId: file.folderId,
    name: file.name,
    path: file.path,
    mimeType: file.mimeType || 'application/octet-stream',
    size,
    version: file.version ?? null,
    modifiedAt: file.modifiedAt ?? null,
    remoteSha256: file.sha256 ?? null,
    lastSeenRunId: syncRunId,
  };
}

export interface FilePlan {
  unchanged: string[];
  relocated: Relocation[];
  /** Unchanged in content and place, listed with another version or time: they are kept, counted unchanged. */
  restamped: Relocation[];
  ingest: FileToIngest[];
}

/** Decides per file: unchanged (seen only), moved or renamed (metadata only), or new/changed (download). */
export function planFiles(
  job: Pick<ListFolderJob, 'syncRunId' | 'folderId' | 'path'>,
  files: FileEntry[],
  known: ReadonlyMap<string, PriorDocument>,
): FilePlan {
  const plan: FilePlan = { unchanged: [], relocated: [], restamped: [], ingest: [] };
  for (const file of files) {
    const path = `${job.path}/${file.name}`;
    const doc = known.get(file.id);
    // A file skipped as too large is planned again, so a raised MAX_FILE_BYTES takes it in.
    if (doc && doc.stored && sameContent(file, doc)) {
      const kept = { id: doc.id, name: file.name, path, folderId: job.folderId, ...stampsOf(file) };
      if (doc.name !== file.name || doc.path !== path || doc.folderId !== job.folderId) plan.relocated.push(kept);
      else {
        plan.unchanged.push(file.id);
        if (restamped(doc, kept)) plan.restamped.push(kept);
      }
      continue;
    }
    plan.ingest.push({
      fileId: file.id,
      folderId: job.folderId,
      name: file.name,
      path,
      ...(file.mimeType ? { mimeType: file.mimeType } : {}),
      ...(Number.isSafeInteger(file.size) && file.size! >= 0 ? { size: file.size } : {}),
      ...(file.version !== undefined && file.version !== null ? { version: String(file.version) } : {}),
      ...(file.modifiedAt ? { modifiedAt: file.modifiedAt } : {}),
      ...(file.sha256 ? { sha256: file.sha256 } : {}),
      change: doc ? 'updated' : 'added',
    });
  }
  return plan;
}

/** The version and time a document shows: the listing's, as a download would have stored them. */
export function stampsOf(file: FileEntry): Pick<Relocation, 'version' | 'modifiedAt'> {
  return { version: file.version != null ? String(file.version) : null, modifiedAt: file.modifiedAt ?? null };
}

function restamped(doc: PriorDocument, listed: Pick<Relocation, 'version' | 'modifiedAt'>): boolean {
  const time = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());
  return doc.version !== listed.version || time(doc.modifiedAt) !== time(listed.modifiedAt);
}

type ContentIdentity = Pick<FileEntry, 'sha256' | 'version' | 'modifiedAt' | 'size'>;

/** Content unchanged; a file and document with nothing to compare are not. */
export function sameContent(file: ContentIdentity, doc: PriorDocument): boolean {
  return contentMatch(file, doc) === true;
}

/**
 * Whatever the listing gives, strongest first: checksum, then version, then modified time and size; null
 * when neither side has what the other has.
 */
function contentMatch(file: ContentIdentity, doc: PriorDocument): boolean | null {
  if (file.sha256 && doc.remoteSha256) return file.sha256 === doc.remoteSha256;
  if (file.version !== undefined && file.version !== null && doc.version !== null)
    return String(file.version) === doc.version;
  if (file.modifiedAt && doc.modifiedAt)
    return (
      new Date(file.modifiedAt).getTime() === new Date(doc.modifiedAt).getTime() &&
      (file.size === undefined || file.size === doc.size)
    );
  return null;
}
