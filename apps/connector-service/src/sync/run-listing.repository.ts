import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName } from './sync.jobs';

/** What a run's listing found, and when it was complete: the run's `totals`. */
@Injectable()
export class RunListingRepository {
  /**
   * Adds a listed page's bytes and stamps `listedAt` once no folder listing of the run is open. Called in the
   * transaction that completes a listing task, after `settle` has locked the run's row: concurrent steps of one
   * run pass here one after another, so the last listing to finish sees every other one done.
   */
  async recordListing(
    transaction: Transaction,
    syncRunId: string,
    page: { listedBytes: number; plannedBytes: number } = { listedBytes: 0, plannedBytes: 0 },
  ): Promise<void> {
    await managerOf(transaction).query(
      `UPDATE connector.sync_runs SET "listedBytes" = "listedBytes" + $2, "plannedBytes" = "plannedBytes" + $3,
         "listedAt" = COALESCE("listedAt", CASE WHEN NOT EXISTS (
           SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = $1 AND NOT t.done AND t."jobName" = $4
         ) THEN now() END)
       WHERE id = $1 AND status = 'Running'`,
      [syncRunId, Math.trunc(page.listedBytes), Math.trunc(page.plannedBytes), SyncJobName.ListFolder],
    );
  }
}
