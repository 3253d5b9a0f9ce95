import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { resolve } from 'node:path';
import { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';

@Global()
@Module({
  providers: [
    {
      provide: BlobStore,
      inject: [ConfigService],
      useFactory: (config: ConfigService) => new FsBlobStore(resolve(config.getOrThrow<string>('BLOB_DIR'))),
    },
  ],
  exports: [BlobStore],
})
export class BlobsModule {}
