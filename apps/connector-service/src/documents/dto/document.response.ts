import type { DocumentView } from '@app/contracts/views';
import type { DocumentEntity } from '../document.entity';

export function documentResponse(doc: DocumentEntity): DocumentView {
  return {
    id: doc.id,
    dataSourceId: doc.dataSourceId,
    externalId: doc.externalId,
    name: doc.name,
    path: doc.path,
    mimeType: doc.mimeType,
    size: doc.size,
    version: doc.version,
    modifiedAt: doc.modifiedAt?.toISOString() ?? null,
    contentSha256: doc.contentSha256,
    extraction: { status: doc.extractionStatus, error: doc.extractionError },
    ingestedAt: doc.ingestedAt.toISOString(),
  };
}
