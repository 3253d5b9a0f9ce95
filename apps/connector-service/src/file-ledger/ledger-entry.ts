import type { RunFileOutcome } from '@app/contracts';

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

/** A failure as the ledger keeps it: its first line, short. Messages name HTTP statuses and rules, never secrets. */
export function shortReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0].trim() || 'Failed').slice(0, MAX_REASON_LENGTH);
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
    case 'TooLarge':
      return { outcome: 'Skipped', reason: 'TooLarge' };
    case 'Failed':
      return { outcome: 'Failed', reason: shortReason(extraction.error ?? 'Text extraction failed') };
    default:
      return null;
  }
}
