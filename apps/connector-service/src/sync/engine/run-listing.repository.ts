import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SyncJobName } from '../sync.jobs';

/** When a run's listing was complete: the run's `totals` count from then. */
@Injectable()
export class RunListingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Stamps `listedAt` once no folder listing of the run is open. Called after the commit that closed a
   * folder's last page (or gave a listing up), outside the run's row lock, which every page of the run
   * holds from `settle` to its commit: the last listing to commit sees every other one done.
   */
  async stampIfListed(syncRunId: string): Promise<void> {
    await this.db.query(
      `UPDATE connector.sync_runs SET "listedAt" = now()
       WHERE id = $1 AND "listedAt" IS NULL AND NOT EXISTS (
         SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = $1 AND NOT t.done AND t."jobName" = $2)`,
      [syncRunId, SyncJobName.ListFolder],
    );
  }
}
