import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DocumentEntity } from './document.entity';
import { DocumentsRepository } from './documents.repository';
import { UnreferencedBlobs } from './unreferenced-blobs';

/** Persistence of documents, shared by data sources (deletion), sync (ingestion) and retrieval. */
@Module({
  imports: [TypeOrmModule.forFeature([DocumentEntity])],
  providers: [DocumentsRepository, UnreferencedBlobs],
  exports: [DocumentsRepository, UnreferencedBlobs],
})
export class DocumentStoreModule {}
