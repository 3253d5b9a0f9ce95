import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { SyncMode, SyncRunStatus } from './sync-run-state';

/** One sample of a run's work done (see `runWork` in run-progress.ts), at an ISO time. */
export interface PaceSample {
  at: string;
  work: number;
}

/** The run's last two samples: the estimate measures the rate from one of them to now. */
export interface RunPace {
  prev: PaceSample | null;
  last: PaceSample;
}

@Entity('sync_runs')
export class SyncRunEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('uuid')
  dataSourceId: string;

  @Column('text')
  mode: SyncMode;

  @Column('text')
  status: SyncRunStatus;

  @Column('int')
  discovered: number;

  @Column('int')
  added: number;

  @Column('int')
  updated: number;

  @Column('int')
  unchanged: number;

  @Column('int')
  deleted: number;

  @Column('int')
  failed: number;

  /** Files listed but not stored (larger than MAX_FILE_BYTES). */
  @Column('int')
  skipped: number;

  /** Folder listings that failed for good; a run with any cannot tell deleted files from unseen ones. */
  @Column('int')
  failedListings: number;

  /** Tasks created and not yet done; the run ends when it reaches zero. */
  @Column('int')
  pendingTasks: number;

  @Column('bigint', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  bytesDownloaded: number;

  /** Listed sizes of the files the listing found, summed (the run's `totals.bytes`). */
  @Column('bigint', { default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  listedBytes: number;

  /** Listed sizes of the files queued for download, summed: what the estimate measures `bytesDownloaded` against. */
  @Column('bigint', { default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  plannedBytes: number;

  /** Bytes received while downloading, as they arrive (a big file's show before its batch commits). */
  @Column('bigint', { default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  bytesStreamed: number;

  /** The last two samples of the run's work done, for an estimate from its recent pace (run-progress.ts). */
  @Column('jsonb', { nullable: true })
  pace: RunPace | null;

  /** When the last folder listing of the run was done; null before (and for runs older than totals). */
  @Column('timestamptz', { nullable: true })
  listedAt: Date | null;

  @Column('text', { nullable: true })
  error: string | null;

  /** The run limit the run reached (`SYNC_MAX_FILES (1000 files)` …), null while none: it deletes nothing then. */
  @Column('text', { nullable: true })
  limitReached: string | null;

  /** Folder listing pages taken so far, against SYNC_MAX_PAGES. */
  @Column('int', { default: 0 })
  listedPages: number;

  /** The files or bytes limit was reached: the run's listing stopped there (its open listings take nothing). */
  @Column('boolean', { default: false })
  listingStopped: boolean;

  /** Deletions the deletion guard held back, until confirmed (then 0 again). */
  @Column('int', { default: 0 })
  deletionsHeld: number;

  /** The user who started the run; null for a scheduled run. */
  @Column('text', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  startedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  finishedAt: Date | null;

  /** When the run's DataSourceSearchable was recorded: at its end, or when its data source's last pending extraction ended. */
  @Column('timestamptz', { nullable: true })
  searchableAt: Date | null;
}
