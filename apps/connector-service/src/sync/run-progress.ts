import type { SyncRunTotalsView } from '@app/contracts/views';
import type { SyncRunEntity } from './sync-run.entity';

type ProgressOf = Pick<
  SyncRunEntity,
  | 'status'
  | 'startedAt'
  | 'listedAt'
  | 'discovered'
  | 'listedBytes'
  | 'plannedBytes'
  | 'bytesDownloaded'
  | 'added'
  | 'updated'
  | 'unchanged'
  | 'failed'
  | 'skipped'
>;

/** A listed file's size, when the document system gave a usable one (else it counts as 0 bytes). */
export function listedSize(file: { size?: number }): number {
  return Number.isSafeInteger(file.size) && file.size! >= 0 ? file.size! : 0;
}

/**
 * A run's totals and estimate. Totals are known once its listing is complete. The estimate measures
 * the share done, by bytes downloaded against the bytes queued for download (by files settled against
 * files listed when there is nothing to download), and assumes the rest goes at the pace of the run
 * so far: left = elapsed × (1 − done) / done. Null while the listing runs or before anything is done;
 * 0 once the run has ended. Steady work makes it fall steadily; a stall makes it grow, as it should.
 */
export function runProgress(
  run: ProgressOf,
  now: Date = new Date(),
): { totals: SyncRunTotalsView | null; etaSeconds: number | null } {
  const totals = run.listedAt ? { files: run.discovered, bytes: run.listedBytes } : null;
  if (run.status !== 'Queued' && run.status !== 'Running') return { totals, etaSeconds: 0 };
  if (!totals || !run.startedAt || run.status !== 'Running') return { totals, etaSeconds: null };
  const done = doneShare(run, totals.files);
  if (done <= 0) return { totals, etaSeconds: null };
  const elapsedSeconds = Math.max(0, (now.getTime() - run.startedAt.getTime()) / 1000);
  return { totals, etaSeconds: Math.ceil((elapsedSeconds * (1 - done)) / done) };
}

/** The share of the run's work done, 0..1. */
function doneShare(run: ProgressOf, files: number): number {
  if (run.plannedBytes > 0) return Math.min(1, run.bytesDownloaded / run.plannedBytes);
  if (files === 0) return 1;
  const settled = run.added + run.updated + run.unchanged + run.failed + run.skipped;
  return Math.min(1, settled / files);
}
