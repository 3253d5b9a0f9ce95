import type { IngestionStatus } from './ingestion-status';

/** Where a document-system URL sends what it is given: scheme, host and port, as URL parsing writes them. */
export function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

/** A data source's recorded origin, and its credential's instance URL now (loaded with it). */
export interface OriginRecord {
  instanceOrigin: string;
  credentialInstanceUrl?: string | null;
}

/**
 * Whether the credential now points elsewhere than the origin its creator (or an admin) last confirmed:
 * then the creator's tokens must not go there, and the data source needs them to confirm it.
 */
export function instanceMoved(source: OriginRecord): boolean {
  return (
    typeof source.credentialInstanceUrl === 'string' && originOf(source.credentialInstanceUrl) !== source.instanceOrigin
  );
}

/** The origin a change by its creator (or an admin) confirms: the one its credential points at now. */
export function originToConfirm(source: OriginRecord): string {
  return typeof source.credentialInstanceUrl === 'string'
    ? originOf(source.credentialInstanceUrl)
    : source.instanceOrigin;
}

/** The status a data source shows: NeedsReauth while its credential points at an origin not confirmed. */
export function shownIngestionStatus(source: OriginRecord & { ingestionStatus: IngestionStatus }): IngestionStatus {
  return instanceMoved(source) ? 'NeedsReauth' : source.ingestionStatus;
}
