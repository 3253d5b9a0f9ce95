/** What a run's steps commit on it, and what they read back (SyncRunsRepository). */
import type { SyncCountsView } from '@app/contracts/views';
import type { SyncTask } from './sync.jobs';
import type { SyncRunStatus } from './sync-run-state';

export type CountDeltas = Partial<
  SyncCountsView & {
    bytesDownloaded: number;
    failedListings: number;
    listedBytes: number;
    plannedBytes: number;
    listedPages: number;
  }
>;

export type EndedRunStatus = Exclude<SyncRunStatus, 'Queued' | 'Running'>;

/** Where a step's run stands, and whether the step's task is done (true when there is no such task). */
export interface StepState {
  status: SyncRunStatus | null;
  dataSourceId: string | null;
  done: boolean;
  /** The run's listing stopped at a files or bytes limit. */
  listingStopped: boolean;
  /** The bytes the run counts against SYNC_MAX_BYTES so far. */
  listedBytes: number;
}

/** What the run's listing took so far, read under its listing lock. */
export interface ListedSoFar {
  discovered: number;
  listedBytes: number;
  /** Folder listing pages the run has taken (SYNC_MAX_PAGES). */
  listedPages: number;
  listingStopped: boolean;
}

/** A run limit reached: its words (`SYNC_MAX_FILES (1000 files)`), and whether the run's listing stops there. */
export interface LimitReached {
  reached: string;
  stopsListing: boolean;
}

/** What one step commits on its run, in the step's transaction. */
export interface StepEffects {
  /** Tasks the step creates; those the run knows already are left alone. */
  adds?: SyncTask[];
  /** The step's own task, marked done. */
  completes?: string;
  counts?: CountDeltas;
  /** A run limit the step reached: recorded unless the run reached one before. */
  limit?: LimitReached | null;
}

/**
 * The step's effects taken: the tasks it created and the tasks still pending (the step that brings them to 0
 * ends the run). 'taskDone': another delivery completed its task first; 'notRunning': the run is no longer
 * Running and keeps the counts it ended with. Either way the caller decides whether to roll back.
 */
export type SettledStep = { added: SyncTask[]; pending: number } | 'taskDone' | 'notRunning';
