import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@app/database';
import { BlobStore } from '../blobs/blob-store';
import { DocumentContentsRepository } from './document-contents.repository';

/**
 * Deletes the blobs of these hashes that no document refers to any more. Each deletion holds the
 * content lock that an ingest takes before it refers to a blob, so a blob another data source is just
 * storing is never taken from under it.
 */
@Injectable()
export class UnreferencedBlobs {
  private readonly logger = new Logger(UnreferencedBlobs.name);

  constructor(
    private readonly contents: DocumentContentsRepository,
    private readonly transactions: Transactions,
    private readonly blobs: BlobStore,
  ) {}

  async collect(hashes: string[]): Promise<void> {
    for (const sha of await this.contents.unreferenced(hashes)) {
      await this.transactions.run(async (transaction) => {
        await this.contents.lockContent(transaction, sha);
        if (await this.contents.isReferenced(transaction, sha)) return;
        await this.blobs
          .delete(sha)
          .catch((error) => this.logger.warn({ sha, error: (error as Error).message }, 'blob not deleted'));
      });
    }
  }
}
