import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { resolve } from 'node:path';
import { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';
import { S3BlobStore } from './s3-blob-store';

function blobStoreFrom(env: ConnectorEnv): BlobStore {
  if (env.BLOB_STORE !== 's3') return new FsBlobStore(resolve(env.BLOB_DIR));
  const accessKeyId = env.S3_ACCESS_KEY_ID;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY;
  return new S3BlobStore({
    bucket: env.S3_BUCKET!,
    prefix: env.S3_PREFIX,
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    requestTimeoutMs: env.S3_REQUEST_TIMEOUT_MS,
    stagingDir: resolve(env.BLOB_DIR, 'staging'),
  });
}

/** The blob store chosen by BLOB_STORE: files under BLOB_DIR (default) or an S3-compatible bucket. */
@Module({
  providers: [{ provide: BlobStore, inject: [ConnectorEnv], useFactory: blobStoreFrom }],
  exports: [BlobStore],
})
export class BlobsModule implements OnApplicationShutdown {
  constructor(@Inject(BlobStore) private readonly blobs: BlobStore) {}

  onApplicationShutdown(): void {
    if (this.blobs instanceof S3BlobStore) this.blobs.close();
  }
}
