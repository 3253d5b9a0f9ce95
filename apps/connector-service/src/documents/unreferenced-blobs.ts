import { Injectable, Logger } from '@nestjs/common';
import { BlobStore } from '../blobs/blob-store';
import { DocumentsRepository } from './documents.repository';

/**
 * Deletes the blobs of these hashes that no document refers to any more. Each deletion holds the
 * content lock that an ingest takes before it refers to a blob, so a blob another data source is just
 * storing is never taken from under it.
 */
@Injectable()
export class UnreferencedBlobs {
  private readonly logger = new Logger(UnreferencedBlobs.name);

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly blobs: BlobStore,
  ) {}

  async collect(hashes: string[]): Promise<void> {
    for (const sha of await this.documents.unreferenced(hashes)) {
      await this.documents.transaction(async (manager) => {
        await this.documents.lockContent(manager, sha);
        if (await this.documents.isReferenced(manager, sha)) return;
        await this.blobs
          .delete(sha)
          .catch((error) => this.logger.warn({ sha, error: (error as Error).message }, 'blob not deleted'));
      });
    }
  }
}
