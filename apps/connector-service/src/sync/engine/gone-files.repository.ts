import { Injectable } from '@nestjs/common';
import { managerOf, Transaction } from '@app/database';

/**
 * Files a run listed and then found gone when it asked for their content (deleted in the document system
 * meanwhile). The run forgets it saw them, so its end drops their documents, under the deletion guard, as the
 * next run would have done.
 */
@Injectable()
export class GoneFilesRepository {
  /** In the transaction that completes the step's task: a retried step finds it done, or does the same again. */
  async unsee(transaction: Transaction, syncRunId: string, externalIds: string[]): Promise<void> {
    if (!externalIds.length) return;
    await managerOf(transaction).query(
      'DELETE FROM connector.sync_sightings WHERE "syncRunId" = $1 AND "externalId" = ANY($2::text[])',
      [syncRunId, externalIds],
    );
  }
}
