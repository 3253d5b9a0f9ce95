import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';
import type { FolderEntry } from '../../document-system/document-system.adapter';
import type { ListFolderJob } from '../sync.jobs';
import { listTask } from './sync-plan';

/** What a listed page meets that its run lists already: each page of a folder is a listing task, keyed by its cursor. */
export interface PagesListedAlready {
  /**
   * Of the page's subfolders, those with a first page's task: a selected folder's from the run's start, any
   * other's from the listing that reached it first.
   */
  folderIds: Set<string>;
  /** The run has the next page's task already, done or not: the folder gave its cursor before. */
  cursorAgain: boolean;
}

/** The pages of a folder a run lists, asked in one statement per listed page. */
@Injectable()
export class FolderPagesRepository {
  async listedAlready(
    transaction: Transaction,
    job: ListFolderJob,
    folders: FolderEntry[],
    nextCursor: string | null,
  ): Promise<PagesListedAlready> {
    const keys = new Map(folders.map((f) => [listTask(job.syncRunId, f.id, '').key, f.id]));
    const nextKey = nextCursor ? listTask(job.syncRunId, job.folderId, '', nextCursor).key : null;
    if (!keys.size && !nextKey) return { folderIds: new Set(), cursorAgain: false };
    const rows: Array<{ key: string }> = await managerOf(transaction).query(
      'SELECT key FROM connector.sync_tasks WHERE "syncRunId" = $1 AND key = ANY($2::text[])',
      [job.syncRunId, [...keys.keys(), ...(nextKey ? [nextKey] : [])]],
    );
    const found = rows.map((r) => r.key);
    return {
      folderIds: new Set(found.filter((key) => keys.has(key)).map((key) => keys.get(key)!)),
      cursorAgain: nextKey !== null && found.includes(nextKey),
    };
  }
}
