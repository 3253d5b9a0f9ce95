import type { SelectionMark } from '@app/contracts/views';

/**
 * Whether a selection selects something: it includes a folder. None (cleared, discarded, or excludes only) leaves a
 * data source NotConfigured, with no run and nothing ingested.
 */
export const selectsSomething = (selection: SelectionMark[]): boolean => selection.some((m) => m.mode === 'include');

/** The same test in SQL: `selection @> SELECTS_SOMETHING` (a jsonb containment). */
export const SELECTS_SOMETHING = JSON.stringify([{ mode: 'include' }]);
