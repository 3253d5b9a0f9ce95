import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import type { Readable } from 'node:stream';
import { BlobStore } from '../blobs/blob-store';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { DocumentEntity } from './document.entity';
import { DocumentsRepository } from './documents.repository';

export const documentNotFound = () => new DomainException(404, 'DOCUMENT_NOT_FOUND', 'Document not found');
const contentNotStored = () =>
  new DomainException(404, 'CONTENT_NOT_STORED', 'The file was not stored: it is larger than MAX_FILE_BYTES');

/** Retrieval of ingested files: any member of the data source may read any of its documents. */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly repository: DocumentsRepository,
    private readonly access: DataSourceAccess,
    private readonly blobs: BlobStore,
  ) {}

  async get(principal: Principal, id: string): Promise<DocumentEntity> {
    const doc = await this.repository.findInTenant(principal.tenantId, id);
    if (!doc) throw documentNotFound();
    await this.access.readable(principal, doc.dataSourceId).catch(() => {
      throw documentNotFound();
    });
    return doc;
  }

  async content(principal: Principal, id: string): Promise<{ doc: DocumentEntity; stream: Readable }> {
    const doc = await this.get(principal, id);
    if (!doc.contentSha256) throw contentNotStored();
    return { doc, stream: await this.blobs.open(doc.contentSha256) };
  }

  async text(
    principal: Principal,
    id: string,
  ): Promise<{ doc: DocumentEntity; text: string; pages: Array<{ page: number; start: number; end: number }> }> {
    const doc = await this.get(principal, id);
    return { doc, ...(await this.repository.textWithPages(id)) };
  }
}
