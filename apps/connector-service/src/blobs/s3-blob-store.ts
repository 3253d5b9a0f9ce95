import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobStore, StoredBlob } from './blob-store';
import { contentMeter } from './content-meter';
import { streamIntoFile } from './staged-file';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix, e.g. `connector/` (empty: the bucket root). */
  prefix: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2 …); unset for AWS itself. */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Socket inactivity limit of each request. */
  requestTimeoutMs: number;
  /** Local directory where content waits while it is hashed. */
  stagingDir: string;
}

export const SDK_NODE_NOTICE_OFF = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * Blobs as objects `<prefix><aa>/<sha256>` in an S3-compatible bucket. The key is known only once the
 * bytes have been hashed, so content is staged in a local file while hashing, then uploaded (multipart,
 * streamed) under its address unless it is there already; memory does not grow with the file size,
 * and a retried or concurrent write of the same bytes lands on the same key.
 */
export class S3BlobStore extends BlobStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3BlobStoreOptions) {
    super();
    // The SDK announces that its releases after January 2027 need Node 22; this one (pinned) runs on the
    // Node 20.19+ we support. Its own switch; set it to false to see the notice.
    process.env[SDK_NODE_NOTICE_OFF] ??= 'true';
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      requestHandler: { requestTimeout: options.requestTimeoutMs, connectionTimeout: 5_000 },
    });
  }

  async put(content: Readable): Promise<StoredBlob> {
    await mkdir(this.options.stagingDir, { recursive: true });
    const staged = join(this.options.stagingDir, randomUUID());
    const meter = contentMeter();
    try {
      await streamIntoFile(content, meter.stream, staged);
      const blob = meter.result();
      if (!(await this.exists(blob.sha256))) {
        const upload = new Upload({
          client: this.client,
          params: {
            Bucket: this.options.bucket,
            Key: this.keyOf(blob.sha256),
            Body: createReadStream(staged),
            ContentLength: blob.size,
          },
        });
        await upload.done();
      }
      return blob;
    } finally {
      await rm(staged, { force: true });
    }
  }

  async open(sha256: string): Promise<Readable | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(sha256) }),
      );
      return object.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async read(sha256: string): Promise<Buffer> {
    const object = await this.client.send(
      new GetObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(sha256) }),
    );
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  async exists(sha256: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(sha256) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(sha256) }));
  }

  close(): void {
    this.client.destroy();
  }

  private keyOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('not a sha256');
    return `${this.options.prefix}${sha256.slice(0, 2)}/${sha256}`;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404;
}
