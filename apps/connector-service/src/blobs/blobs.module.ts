import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { resolve } from 'node:path';
import { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';
import { S3BlobStore } from './s3-blob-store';

function blobStoreFrom(config: ConfigService): BlobStore {
  if (config.get<string>('BLOB_STORE') !== 's3') return new FsBlobStore(resolve(config.getOrThrow<string>('BLOB_DIR')));
  const accessKeyId = config.get<string>('S3_ACCESS_KEY_ID');
  const secretAccessKey = config.get<string>('S3_SECRET_ACCESS_KEY');
  return new S3BlobStore({
    bucket: config.getOrThrow<string>('S3_BUCKET'),
    prefix: config.get<string>('S3_PREFIX') ?? '',
    endpoint: config.get<string>('S3_ENDPOINT'),
    region: config.get<string>('S3_REGION') ?? 'us-east-1',
    forcePathStyle: config.get<boolean>('S3_FORCE_PATH_STYLE') ?? true,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    requestTimeoutMs: config.get<number>('S3_REQUEST_TIMEOUT_MS') ?? 60_000,
    stagingDir: resolve(config.getOrThrow<string>('BLOB_DIR'), 'staging'),
  });
}

/** The blob store chosen by BLOB_STORE: files under BLOB_DIR (default) or an S3-compatible bucket. */
@Global()
@Module({
  providers: [{ provide: BlobStore, inject: [ConfigService], useFactory: blobStoreFrom }],
  exports: [BlobStore],
})
export class BlobsModule implements OnApplicationShutdown {
  constructor(@Inject(BlobStore) private readonly blobs: BlobStore) {}

  onApplicationShutdown(): void {
    if (this.blobs instanceof S3BlobStore) this.blobs.close();
  }
}
