import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';

/** Contained in a selection that selects something: one with an include mark (none: cleared, discarded, excludes only). */
export const SELECTS_SOMETHING = JSON.stringify([{ mode: 'include' }]);

/** The documents of a data source that selects nothing, and their removal; the data source itself stays. */
@Injectable()
export class UnselectedDocumentsRepository {
  /**
   * Share-locks the data source's row until the commit when it selects nothing: a selection saved meanwhile waits,
   * and one saved before is seen here. Ingestion and text extraction take the row's key-share lock only, so they
   * are not waited for. False when it selects something, or is gone.
   */
  async lockSelectingNothing(transaction: Transaction, dataSourceId: string): Promise<boolean> {
    const rows: unknown[] = await managerOf(transaction).query(
      'SELECT 1 FROM connector.data_sources WHERE id = $1 AND NOT selection @> $2::jsonb FOR SHARE',
      [dataSourceId, SELECTS_SOMETHING],
    );
    return rows.length > 0;
  }

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
