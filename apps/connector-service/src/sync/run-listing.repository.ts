import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { SyncJobName } from './sync.jobs';

/** When a run's listing was complete: the run's `totals` count from then (the bytes are `settle`'s). */
@Injectable()
export class RunListingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Stamps `listedAt` once no folder listing of the run is open. Called after the commit that completed
   * a listing, in a statement of its own: the last listing to commit sees every other one done. (Inside the
   * listing's transaction it would see the others only with the run's row locked, and every page of every
   * folder would hold that lock one statement longer.) A run that ends stamps it too, within its ending.
   */
  async stampListed(syncRunId: string, transaction?: Transaction): Promise<void> {
    const manager = transaction ? managerOf(transaction) : this.db.manager;
    await manager.query(
      `UPDATE connector.sync_runs SET "listedAt" = now()
       WHERE id = $1 AND status = 'Running' AND "listedAt" IS NULL AND NOT EXISTS (
         SELECT 1 FROM connector.sync_tasks t WHERE t."syncRunId" = $1 AND NOT t.done AND t."jobName" = $2
       )`,
      [syncRunId, SyncJobName.ListFolder],
    );
  }
}
