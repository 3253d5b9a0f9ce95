import { DomainException } from '@app/errors';
import type { RunFileOutcome } from '@app/contracts/views';

/** One row of a run's file ledger, as a step decides it. */
export interface LedgerEntry {
  externalId: string;
  name: string;
  path: string;
  outcome: RunFileOutcome;
  reason: string | null;
  /** The content an Added or Updated file got: its text extraction may still make it NoText, Skipped or Failed. */
  contentSha256?: string | null;
  /** When absent, the data source's document with this externalId (if any). */
  documentId?: string | null;
}

export const MAX_REASON_LENGTH = 300;

/**
 * A failure as the ledger keeps it (every member of the data source reads it): the first line of our own
 * exceptions' messages, which name statuses and rules; any other error only by its kind, since a library's
 * message may quote a URL or a header.
 */
export function shortReason(error: unknown): string {
  if (!(error instanceof DomainException)) return `Failed (${error instanceof Error ? error.name : 'unknown error'})`;
  return firstLine(error.message);
}

function firstLine(text: string): string {
  return (text.split('\n')[0].trim() || 'Failed').slice(0, MAX_REASON_LENGTH);
}

/** How an ended text extraction changes its file's ledger row; null: it does not (text was found). */
export function extractionOutcome(extraction: {
  status: string;
  text: string;
  error: string | null;
}): Pick<LedgerEntry, 'outcome' | 'reason'> | null {
  switch (extraction.status) {
    case 'Succeeded':
      return extraction.text.trim() ? null : { outcome: 'NoText', reason: null };
    case 'Unsupported':
      return { outcome: 'Skipped', reason: 'Unsupported' };
    case 'Failed':
      return { outcome: 'Failed', reason: firstLine(extraction.error ?? 'Text extraction failed') };
    default:
      return null;
  }
}
