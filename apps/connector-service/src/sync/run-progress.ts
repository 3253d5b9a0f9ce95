import type { SyncRunTotalsView } from '@app/contracts/views';
import type { PaceSample, RunPace, SyncRunEntity } from './sync-run.entity';

export type { PaceSample, RunPace };

type ProgressOf = Pick<
  SyncRunEntity,
  | 'status'
  | 'startedAt'
  | 'listedAt'
  | 'discovered'
  | 'listedBytes'
  | 'plannedBytes'
  | 'bytesDownloaded'
  | 'bytesStreamed'
  | 'added'
  | 'updated'
  | 'unchanged'
  | 'failed'
  | 'skipped'
  | 'pace'
>;

/** What settling one file costs beside its bytes (a listing entry, a request, a row), in bytes of work. */
export const FILE_WORK_BYTES = 64 * 1024;
/** A new pace sample is taken when the last is this old: the rate is measured over the last 1–4 s. */
export const PACE_SAMPLE_MS = 2000;
/** A rate measured over less than this is too noisy to use. */
const MIN_RATE_WINDOW_MS = 1000;

/** A listed file's size, when the document system gave a usable one (else it counts as 0 bytes). */
export function listedSize(file: { size?: number }): number {
  return Number.isSafeInteger(file.size) && file.size! >= 0 ? file.size! : 0;
}

/** Files the run has decided (settled) so far. */
function settledFiles(run: ProgressOf): number {
  return run.added + run.updated + run.unchanged + run.failed + run.skipped;
}

/** Bytes of the planned downloads received so far, as they stream in. */
function bytesIn(run: ProgressOf): number {
  return Math.min(run.plannedBytes, Math.max(run.bytesDownloaded, run.bytesStreamed));
}

/** The run's work done: bytes received, and a fixed cost per file settled (an unchanged file costs its listing). */
export function runWork(run: ProgressOf): number {
  return bytesIn(run) + settledFiles(run) * FILE_WORK_BYTES;
}

/**
 * A run's totals and estimate. Totals are known once its listing is complete (null before: a run whose
 * totals are unknown shows none). The estimate is the work left (bytes still to receive, and the files
 * not settled) over the recent rate (the work done since a pace sample 1–4 s old; the whole
 * run's rate until there is one, or while the recent rate is nil). Bytes count as they arrive, so work
 * being done makes the estimate fall; a stall makes it grow, as it should. Null while the listing runs
 * or before anything is done; 0 once every file is settled or the run has ended.
 */
export function runProgress(
  run: ProgressOf,
  now: Date = new Date(),
): { totals: SyncRunTotalsView | null; etaSeconds: number | null } {
  const totals = run.listedAt ? { files: run.discovered, bytes: run.listedBytes } : null;
  if (run.status !== 'Queued' && run.status !== 'Running') return { totals, etaSeconds: 0 };
  if (!totals || !run.startedAt || run.status !== 'Running') return { totals, etaSeconds: null };
  const filesLeft = Math.max(0, totals.files - settledFiles(run));
  if (filesLeft === 0) return { totals, etaSeconds: 0 };
  const left = run.plannedBytes - bytesIn(run) + filesLeft * FILE_WORK_BYTES;
  const rate = recentRate(run, now) || averageRate(run, now);
  return { totals, etaSeconds: rate > 0 ? Math.ceil(left / rate) : null };
}

/** The pace to store after reading the run at `now`, or null when the stored one is recent enough. */
export function nextPace(run: ProgressOf, now: Date = new Date()): RunPace | null {
  if (run.status !== 'Running') return null;
  const last = run.pace?.last ?? null;
  if (last && now.getTime() - Date.parse(last.at) < PACE_SAMPLE_MS) return null;
  return { prev: last, last: { at: now.toISOString(), work: runWork(run) } };
}

/** Work per second since the newest sample old enough to measure from; 0 when there is none or nothing was done since. */
function recentRate(run: ProgressOf, now: Date): number {
  const samples = [run.pace?.last, run.pace?.prev].filter((s): s is PaceSample => !!s);
  const since = samples.find((s) => now.getTime() - Date.parse(s.at) >= MIN_RATE_WINDOW_MS);
  if (!since) return 0;
  return Math.max(0, runWork(run) - since.work) / ((now.getTime() - Date.parse(since.at)) / 1000);
}

function averageRate(run: ProgressOf, now: Date): number {
  const seconds = (now.getTime() - run.startedAt!.getTime()) / 1000;
  return seconds > 0 ? runWork(run) / seconds : 0;
}
