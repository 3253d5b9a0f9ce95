import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName, SyncTask } from '../sync.jobs';

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
}
