import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';

/** The documents of a data source that selects nothing, and their removal; the data source itself stays. */
@Injectable()
export class UnselectedDocumentsRepository {
  /**
   * Deletes its documents (their chunks and held deletions go by cascade) and its tree's folders; returns the
   * hashes of the contents the documents held.
   */
  async removeAll(transaction: Transaction, dataSourceId: string): Promise<string[]> {
    const manager = managerOf(transaction);
    const hashes: Array<{ sha: string }> = await manager.query(
      `WITH gone AS (DELETE FROM connector.documents WHERE "dataSourceId" = $1 RETURNING "contentSha256")
       SELECT DISTINCT "contentSha256" AS sha FROM gone WHERE "contentSha256" IS NOT NULL`,
      [dataSourceId],
    );
    await manager.query('DELETE FROM connector.synced_folders WHERE "dataSourceId" = $1', [dataSourceId]);
    return hashes.map((h) => h.sha);
  }
}
