import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../../connector-env';
import { BlobStore, StoredBlob } from '../../blobs/blob-store';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { isReauthRequired } from '../../document-system/document-system.exception';
import { SyncRunsRepository } from '../sync-runs.repository';
import { capped, FileTooLarge } from './file-size-cap';
import { StreamedBytes } from './streamed-bytes';
import { FileToIngest } from '../sync.jobs';

export type FetchedFile = { file: FileToIngest; blob: StoredBlob; mimeType: string };
/** Listed but not stored: larger than MAX_FILE_BYTES. `size` is what we know of it. */
export type SkippedFile = { file: FileToIngest; size: number };

/** A batch's files streamed into the blob store, within MAX_FILE_BYTES each. */
@Injectable()
export class FileDownloads {
  private readonly maxFileBytes: number;

  constructor(
    private readonly blobs: BlobStore,
    private readonly blobGarbage: UnreferencedBlobs,
    private readonly runs: SyncRunsRepository,
    env: ConnectorEnv,
  ) {
    this.maxFileBytes = env.MAX_FILE_BYTES;
  }

  /**
   * Downloads each file in turn; a failure is kept for the caller, except a lost authorization, which ends
   * the step. A file over MAX_FILE_BYTES (listed, announced or streamed) is skipped; the blob store drops
   * its partial bytes.
   */
  async download(docs: DocumentSystemSession, files: FileToIngest[], syncRunId: string) {
    // The last bytes are not reported: the batch's commit counts them (bytesDownloaded), with no extra write.
    const streamed = new StreamedBytes((bytes) => this.runs.addStreamedBytes(syncRunId, bytes));
    const fetched: FetchedFile[] = [];
    const skipped: SkippedFile[] = [];
    const failures: Array<{ file: FileToIngest; error: unknown }> = [];
    for (const file of files) {
      try {
        fetched.push(await this.fetch(docs, file, streamed));
      } catch (error) {
        if (error instanceof FileTooLarge) {
          skipped.push({ file, size: Math.max(file.size ?? 0, error.sizeBytes) });
          continue;
        }
        if (!isReauthRequired(error)) {
          failures.push({ file, error });
          continue;
        }
        await this.blobGarbage.collect(fetched.map((f) => f.blob.sha256)).catch(() => undefined);
        throw error;
      }
    }
    return { fetched, skipped, failures };
  }

  private async fetch(docs: DocumentSystemSession, file: FileToIngest, streamed: StreamedBytes): Promise<FetchedFile> {
    if ((file.size ?? 0) > this.maxFileBytes) throw new FileTooLarge(this.maxFileBytes, file.size!);
    const content = await docs.fileContent(file.fileId, file.size ?? undefined);
    if ((content.contentLength ?? 0) > this.maxFileBytes) {
      content.stream.destroy();
      throw new FileTooLarge(this.maxFileBytes, content.contentLength!);
    }
    const blob = await this.blobs.put(capped(streamed.counting(content.stream), this.maxFileBytes));
    return { file, blob, mimeType: file.mimeType || content.contentType.split(';')[0] || 'application/octet-stream' };
  }
}
