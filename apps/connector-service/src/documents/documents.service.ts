import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import type { Readable } from 'node:stream';
import { BlobStore } from '../blobs/blob-store';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { DocumentEntity } from './document.entity';
import { DocumentTextsRepository, StoredText } from './document-texts.repository';
import { DocumentsRepository } from './documents.repository';
import { DocumentTextAnswer, documentTextResponse } from './dto/document-text.response';

/**
 * Characters of text read from PostgreSQL at a time: what an answer to a slow reader holds. Not much less:
 * substr decompresses the text from its start each time, so the database's work grows as length² / slice.
 */
export const TEXT_SLICE_CHARS = 1024 * 1024;

export const documentNotFound = () => new DomainException(404, 'DOCUMENT_NOT_FOUND', 'Document not found');
const contentNotStored = () =>
  new DomainException(404, 'CONTENT_NOT_STORED', 'The file was not stored: it is larger than MAX_FILE_BYTES');
const contentGone = () =>
  new DomainException(404, 'CONTENT_NOT_STORED', "The document's stored file is not available; try again");
// Thrown once the answer has begun: the client sees it cut short, and reads again.
const textChanged = () =>
  new DomainException(409, 'DOCUMENT_CHANGED', 'The document changed while its text was sent; read it again');

/** Retrieval of ingested files: any member of the data source may read any of its documents. */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly repository: DocumentsRepository,
    private readonly texts: DocumentTextsRepository,
    private readonly access: DataSourceAccess,
    private readonly blobs: BlobStore,
  ) {}

  async get(principal: Principal, id: string): Promise<DocumentEntity> {
    const doc = await this.repository.findInTenant(principal.tenantId, id);
    if (!doc) throw documentNotFound();
    await this.access.readable(principal, doc.dataSourceId).catch(asDocumentNotFound);
    return doc;
  }

  /**
   * The document's file with the document as it was when the file was opened. A sync may store a new version
   * and collect the old blob between the read of the document and the open of its blob: then the document is
   * read again and its new version sent.
   */
  async content(principal: Principal, id: string): Promise<{ doc: DocumentEntity; stream: Readable }> {
    const doc = await this.get(principal, id);
    const stream = await this.open(doc);
    if (stream) return { doc, stream };
    const current = await this.repository.findInTenant(principal.tenantId, id);
    if (!current) throw documentNotFound();
    const replaced = current.contentSha256 !== doc.contentSha256 ? await this.open(current) : null;
    if (!replaced) throw contentGone();
    return { doc: current, stream: replaced };
  }

  private open(doc: DocumentEntity): Promise<Readable | null> {
    if (!doc.contentSha256) throw contentNotStored();
    return this.blobs.open(doc.contentSha256);
  }

  async text(principal: Principal, id: string): Promise<DocumentTextAnswer> {
    // The document's fields and its text's version in one read: the answer and its ETag describe one version.
    const text = await this.texts.stored(principal.tenantId, id);
    if (!text) throw documentNotFound();
    await this.access.readable(principal, text.dataSourceId).catch(asDocumentNotFound);
    return documentTextResponse(text, this.slices(id, text));
  }

  /** The text in slices, all from the version `text` describes: the answer's length was announced for it. */
  private async *slices(id: string, text: StoredText): AsyncGenerator<string> {
    for (let start = 0; start < text.length; start += TEXT_SLICE_CHARS) {
      const slice = await this.texts.slice(id, text.version, start, TEXT_SLICE_CHARS);
      if (slice === null) throw textChanged();
      yield slice;
    }
  }
}

/**
 * A data source the caller may not read is a document not found; any other failure (the database away) stays what it
 * is: a 404 for it would tell a client the document is gone.
 */
function asDocumentNotFound(error: unknown): never {
  if (error instanceof DomainException && error.statusCode === 404) throw documentNotFound();
  throw error;
}
