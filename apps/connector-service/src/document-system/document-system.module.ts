import { Module } from '@nestjs/common';
import { DocumentSystemAdapter } from './document-system.adapter';
import { HttpDocumentSystemAdapter } from './http-document-system.adapter';

@Module({
  providers: [{ provide: DocumentSystemAdapter, useFactory: () => new HttpDocumentSystemAdapter() }],
  exports: [DocumentSystemAdapter],
})
export class DocumentSystemModule {}
