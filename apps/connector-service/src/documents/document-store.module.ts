import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DocumentContentsRepository } from './document-contents.repository';
import { DocumentEntity } from './document.entity';
import { DocumentsRepository } from './documents.repository';
import { SyncedDocumentsRepository } from './synced-documents.repository';
import { UnreferencedBlobs } from './unreferenced-blobs';

/** Persistence of documents, shared by data sources (deletion), sync (ingestion) and retrieval. */
@Module({
  imports: [TypeOrmModule.forFeature([DocumentEntity])],
  providers: [DocumentsRepository, SyncedDocumentsRepository, DocumentContentsRepository, UnreferencedBlobs],
  exports: [DocumentsRepository, SyncedDocumentsRepository, DocumentContentsRepository, UnreferencedBlobs],
})
export class DocumentStoreModule {}
