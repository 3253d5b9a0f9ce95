import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import { BlobsModule } from '../blobs/blobs.module';
import { DocumentContentsRepository } from './document-contents.repository';
import { DocumentEntity } from './document.entity';
import { DocumentsRepository } from './documents.repository';
import { EXTRACTION_BACKLOG } from '../metrics/connector-metrics';
import { ExtractionBacklogCollector } from './extraction-backlog.collector';
import { SyncedDocumentsRepository } from './synced-documents.repository';
import { UnreferencedBlobs } from './unreferenced-blobs';

/** Persistence of documents, shared by data sources (deletion), sync (ingestion) and retrieval. */
@Module({
  imports: [TypeOrmModule.forFeature([DocumentEntity]), BlobsModule],
  providers: [
    DocumentsRepository,
    SyncedDocumentsRepository,
    DocumentContentsRepository,
    UnreferencedBlobs,
    ExtractionBacklogCollector,
    makeGaugeProvider({ name: EXTRACTION_BACKLOG, help: 'Documents waiting for text extraction, counted at scrape' }),
  ],
  exports: [DocumentsRepository, SyncedDocumentsRepository, DocumentContentsRepository, UnreferencedBlobs],
})
export class DocumentStoreModule {}
