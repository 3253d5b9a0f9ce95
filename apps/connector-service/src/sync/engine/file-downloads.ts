import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../../connector-env';
import { headerMediaType } from '../../common/media-type';
import { BlobStore, StoredBlob } from '../../blobs/blob-store';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { isFileGone, isReauthRequired } from '../../document-system/document-system.exception';
import { listedSize } from '../run-progress';
import { SyncRunsRepository } from '../sync-runs.repository';
import { capped, FileTooLarge } from './file-size-cap';
import { StreamedBytes } from './streamed-bytes';
import { FileToIngest } from '../sync.jobs';

export type FetchedFile = { file: FileToIngest; blob: StoredBlob; mimeType: string };
/** Listed but not stored: larger than MAX_FILE_BYTES. `size` is what we know of it. */
export type SkippedFile = { file: FileToIngest; size: number };

/**
 * How far a batch's downloads may go beyond their files' listed sizes: the run's headroom under SYNC_MAX_BYTES
 * when the batch began, taken by its files in turn. `exempt` files were stored by this run already (a retry of
 * a file the listing gives no way to recognise): their bytes were counted then.
 */
export interface RunBytesBudget {
  headroom: number;
  exempt: (file: FileToIngest) => boolean;
}

/** The file's bytes passed what the run has left under SYNC_MAX_BYTES before MAX_FILE_BYTES: it is not stored. */
class OverRunBytes extends Error {}

/** A batch's files streamed into the blob store, within MAX_FILE_BYTES each and the run's bytes. */
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
   * the step, and the document system's answer that it has no such file (`gone`: deleted since it was listed),
   * which is no failure. A file over MAX_FILE_BYTES (listed, announced or streamed) is skipped; one whose bytes
   * pass its listed size by more than the run has left under SYNC_MAX_BYTES is over the run's limit (its
   * download stops there). The blob store drops the partial bytes of either.
   */
  async download(docs: DocumentSystemSession, files: FileToIngest[], syncRunId: string, budget: RunBytesBudget) {
    // The last bytes are not reported: the batch's commit counts them (bytesDownloaded), with no extra write.
    const streamed = new StreamedBytes((bytes) => this.runs.addStreamedBytes(syncRunId, bytes));
    const fetched: FetchedFile[] = [];
    const skipped: SkippedFile[] = [];
    const overLimit: FileToIngest[] = [];
    const failures: Array<{ file: FileToIngest; error: unknown }> = [];
    const gone: FileToIngest[] = [];
    let headroom = budget.headroom;
    for (const file of files) {
      const exempt = budget.exempt(file);
      try {
        const got = await this.fetch(docs, file, streamed, exempt ? Infinity : Math.max(0, headroom));
        if (!exempt) headroom -= Math.max(0, got.blob.size - listedSize(file));
        fetched.push(got);
      } catch (error) {
        if (error instanceof OverRunBytes) {
          overLimit.push(file);
          continue;
        }
        if (error instanceof FileTooLarge) {
          skipped.push({ file, size: Math.max(file.size ?? 0, error.sizeBytes) });
          continue;
        }
        if (isFileGone(error)) {
          gone.push(file);
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
    return { fetched, skipped, overLimit, failures, gone };
  }

  /** `beyondListed`: the most bytes past the listed size the run may take for this file. */
  private async fetch(
    docs: DocumentSystemSession,
    file: FileToIngest,
    streamed: StreamedBytes,
    beyondListed: number,
  ): Promise<FetchedFile> {
    if ((file.size ?? 0) > this.maxFileBytes) throw new FileTooLarge(this.maxFileBytes, file.size!);
    const runBound = listedSize(file) + beyondListed;
    const limit = Math.min(this.maxFileBytes, runBound);
    // Which limit the bytes passed: the run's (it came first) or MAX_FILE_BYTES.
    const passed = (error: unknown) =>
      error instanceof FileTooLarge && runBound < this.maxFileBytes ? new OverRunBytes() : error;
    const content = await docs.fileContent(file.fileId, file.size ?? undefined);
    if ((content.contentLength ?? 0) > limit) {
      content.stream.destroy();
      throw passed(new FileTooLarge(limit, content.contentLength!));
    }
    let blob: StoredBlob;
    try {
      blob = await this.blobs.put(capped(streamed.counting(content.stream), limit));
    } catch (error) {
      throw passed(error);
    }
    const mimeType = file.mimeType || headerMediaType(content.contentType) || 'application/octet-stream';
    return { file, blob, mimeType };
  }
}
