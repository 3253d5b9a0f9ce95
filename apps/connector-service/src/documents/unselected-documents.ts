import { Injectable } from '@nestjs/common';
import { OutageRider, Transaction, Transactions } from '@app/database';
import { UnreferencedBlobs } from './unreferenced-blobs';
import { UnselectedDocumentsRepository } from './unselected-documents.repository';

/** How long a removal may keep trying after a deadlock (or a database away) before it fails; the sync sweep tries again. */
const REMOVE_RETRY_MS = 10_000;

/**
 * Removes what a data source that selects nothing had ingested: its documents with their text and chunks, its
 * tree's folders, and the blobs no other document refers to. Its runs, members, credential and schedule stay.
 */
@Injectable()
export class UnselectedDocuments {
  constructor(
    private readonly repository: UnselectedDocumentsRepository,
    private readonly transactions: Transactions,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly outages: OutageRider,
  ) {}

  /**
   * Removes nothing once it selects something again (`stillUnselected`, in the removal's transaction, says so and
   * holds the data source's row), so a late removal never takes a new selection's documents.
   * A step of its cancelled run may still hold rows it is rolling back: a deadlock with it is tried again.
   */
  async remove(dataSourceId: string, stillUnselected: (transaction: Transaction) => Promise<boolean>): Promise<void> {
    const hashes = await this.outages.ride(
      () =>
        this.transactions.run(async (transaction) => {
          if (!(await stillUnselected(transaction))) return [];
          return this.repository.removeAll(transaction, dataSourceId);
        }),
      REMOVE_RETRY_MS,
    );
    await this.blobGarbage.collect(hashes);
  }
}
