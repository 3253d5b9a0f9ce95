import { Module } from '@nestjs/common';
import { BlobsModule } from '../blobs/blobs.module';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { FileLedgerModule } from '../file-ledger/file-ledger.module';
import { DataSourceDocuments } from './data-source-documents';
import { DocumentStoreModule } from './document-store.module';
import { DocumentTextsRepository } from './document-texts.repository';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';
import { TreeController } from './tree.controller';
import { TreeRepository } from './tree.repository';
import { TreeService } from './tree.service';

@Module({
  imports: [DocumentStoreModule, DataSourcesModule, BlobsModule, FileLedgerModule],
  controllers: [DocumentsController, TreeController],
  providers: [DataSourceDocuments, DocumentTextsRepository, DocumentsService, TreeRepository, TreeService],
})
export class DocumentsModule {}
