import { Injectable } from '@nestjs/common';
import { Transaction } from '@app/database';
import { BlobStore } from '../../blobs/blob-store';
import { DocumentContentsRepository } from '../../documents/document-contents.repository';

/** The bytes were collected between the put and the save: the job fails and its retry downloads again. */
export class ContentCollected extends Error {
  constructor(sha256: string) {
    super(`content ${sha256} was collected while it was being ingested; the file is downloaded again`);
  }
}

/** Keeps a batch's stored bytes from the blob collector until the batch's documents are saved. */
@Injectable()
export class BatchContents {
  constructor(
    private readonly contents: DocumentContentsRepository,
    private readonly blobs: BlobStore,
  ) {}

  /** Locks the contents until the commit, then checks that their blobs are still there (ContentCollected if not). */
  async keep(transaction: Transaction, hashes: string[]): Promise<void> {
    await this.contents.lockContents(transaction, hashes);
    // The collector may have taken identical bytes away since the put (another data source let go of them).
    // Asked all at once: with S3 each is a round trip, and the content stays locked until the commit.
    const unique = [...new Set(hashes)];
    const present = await Promise.all(unique.map((sha256) => this.blobs.exists(sha256)));
    const collected = unique.find((_, i) => !present[i]);
    if (collected) throw new ContentCollected(collected);
  }
}
