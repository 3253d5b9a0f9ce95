import type { DataSourceEntity } from '../data-source.entity';

/** What a data source's selection is resolved against and made as: its login, where it goes, and as whom. */
export type SelectionBasis = Pick<
  DataSourceEntity,
  'credentialId' | 'connectionId' | 'instanceOrigin' | 'selectionSubject'
>;

/**
 * A selection is resolved (slowly, by the document system) before it is saved. Should another change move its
 * basis meanwhile (a new credential discards the selection), it is resolved again against the data source as it is
 * now: saved as resolved, it would keep folders the new login may not see. How often it may start over.
 */
export const SELECTION_TRIES = 5;

export function sameSelectionBasis(before: SelectionBasis, now: SelectionBasis): boolean {
  return (
    before.credentialId === now.credentialId &&
    before.connectionId === now.connectionId &&
    before.instanceOrigin === now.instanceOrigin &&
    before.selectionSubject === now.selectionSubject
  );
}
