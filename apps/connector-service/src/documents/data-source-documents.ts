import { Injectable, OnModuleInit } from '@nestjs/common';
import type { ExtractionProgressView } from '@app/contracts/views';
import { DataSourceContents, DataSourceContentsRegistry } from '../data-sources/data-source-contents';
import { DocumentsRepository } from './documents.repository';
import { UnreferencedBlobs } from './unreferenced-blobs';

/** A data source's documents as the data sources feature sees them; registered with it at start. */
@Injectable()
export class DataSourceDocuments implements DataSourceContents, OnModuleInit {
  constructor(
    private readonly registry: DataSourceContentsRegistry,
    private readonly documents: DocumentsRepository,
    private readonly blobGarbage: UnreferencedBlobs,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  extractionProgress(dataSourceId: string): Promise<ExtractionProgressView> {
    return this.documents.extractionProgress(dataSourceId);
  }

  /** The blobs its documents referred to are deleted once no other document does. */
  async removeWith(dataSourceId: string, drop: () => Promise<void>): Promise<void> {
    const hashes = await this.documents.contentHashes(dataSourceId);
    await drop();
    await this.blobGarbage.collect(hashes);
  }
}
