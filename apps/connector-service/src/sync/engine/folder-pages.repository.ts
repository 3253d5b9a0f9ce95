import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName, SyncTask } from '../sync.jobs';
import { listTask } from './sync-plan';

/** The pages of a folder a run lists: each is a listing task, keyed by the folder and the page's cursor. */
@Injectable()
export class FolderPagesRepository {
  /** Whether the run has this page's task already, done or not: its folder gave its cursor before. */
  async known(transaction: Transaction, page: SyncTask<SyncJobName.ListFolder>): Promise<boolean> {
    const rows: unknown[] = await managerOf(transaction).query(
      'SELECT 1 FROM connector.sync_tasks WHERE "syncRunId" = $1 AND key = $2',
      [page.data.syncRunId, page.key],
    );
    return rows.length > 0;
  }

  /**
   * Of `folderIds`, those the run lists already: it has their first page's task (a selected folder's from the
   * run's start, any other's from the listing that reached it first).
   */
  async listed(transaction: Transaction, syncRunId: string, folderIds: string[]): Promise<Set<string>> {
    if (!folderIds.length) return new Set();
    const keys = new Map(folderIds.map((id) => [listTask(syncRunId, id, '').key, id]));
    const rows: Array<{ key: string }> = await managerOf(transaction).query(
      'SELECT key FROM connector.sync_tasks WHERE "syncRunId" = $1 AND key = ANY($2::text[])',
      [syncRunId, [...keys.keys()]],
    );
    return new Set(rows.map((r) => keys.get(r.key)!));
  }
}
