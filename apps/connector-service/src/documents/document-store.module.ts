import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutageModule } from '@app/database';
import { makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import { BlobsModule } from '../blobs/blobs.module';
import { DocumentContentsRepository } from './document-contents.repository';
import { DocumentEntity } from './document.entity';
import { DocumentsRepository } from './documents.repository';
import { EXTRACTION_BACKLOG } from '../metrics/connector-metrics';
import { ExtractionBacklogCollector } from './extraction-backlog.collector';
import { SyncedDocumentsRepository } from './synced-documents.repository';
import { UnreferencedBlobs } from './unreferenced-blobs';
import { UnselectedDocuments } from './unselected-documents';
import { UnselectedDocumentsRepository } from './unselected-documents.repository';

/** Persistence of documents, shared by data sources (deletion), sync (ingestion) and retrieval. */
@Module({
  imports: [TypeOrmModule.forFeature([DocumentEntity]), BlobsModule, OutageModule],
  providers: [
    DocumentsRepository,
    SyncedDocumentsRepository,
    DocumentContentsRepository,
    UnreferencedBlobs,
    UnselectedDocumentsRepository,
    UnselectedDocuments,
    ExtractionBacklogCollector,
    makeGaugeProvider({ name: EXTRACTION_BACKLOG, help: 'Documents waiting for text extraction, counted at scrape' }),
  ],
  exports: [
    DocumentsRepository,
    SyncedDocumentsRepository,
    DocumentContentsRepository,
    UnreferencedBlobs,
    UnselectedDocuments,
  ],
})
export class DocumentStoreModule {}
