import { ApiProperty } from '@nestjs/swagger';
import {
  SYNC_MODES,
  SYNC_RUN_STATUSES,
  SyncCountsView,
  SyncMode,
  SyncRunStatus,
  SyncRunTotalsView,
  SyncRunView,
  SyncStartView,
  DeletionsConfirmedView,
} from '../views/sync-run.view';

export class SyncCountsResponse implements SyncCountsView {
  @ApiProperty()
  discovered: number;

  @ApiProperty()
  added: number;

  @ApiProperty()
  updated: number;

  @ApiProperty()
  unchanged: number;

  @ApiProperty()
  deleted: number;

  @ApiProperty()
  failed: number;

  @ApiProperty({ description: 'Files listed but not stored (larger than MAX_FILE_BYTES)' })
  skipped: number;
}

export class SyncRunTotalsResponse implements SyncRunTotalsView {
  @ApiProperty({ description: 'Files the listing found in the selection' })
  files: number;

  @ApiProperty({ description: 'Their listed sizes, summed' })
  bytes: number;
}

export class SyncRunResponse implements SyncRunView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  dataSourceId: string;

  @ApiProperty({ enum: SYNC_MODES })
  mode: SyncMode;

  @ApiProperty({ enum: SYNC_RUN_STATUSES })
  status: SyncRunStatus;

  @ApiProperty({ type: () => SyncCountsResponse })
  counts: SyncCountsResponse;

  @ApiProperty()
  bytesDownloaded: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  startedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finishedAt: string | null;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({
    type: () => SyncRunTotalsResponse,
    nullable: true,
    description: 'What the listing found; null until no folder listing of the run is pending',
  })
  totals: SyncRunTotalsResponse | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Estimated seconds left: null while unknown, 0 once the run has ended',
  })
  etaSeconds: number | null;

  @ApiProperty({
    description:
      'Deletions the deletion guard holds (more than DELETE_GUARD_PERCENT of the documents, or a selected folder vanished) until POST /v1/sync-runs/{id}/confirm-deletions; 0 when none',
  })
  deletionsHeld: number;
}

export class SyncStartResponse implements SyncStartView {
  @ApiProperty({ format: 'uuid' })
  syncRunId: string;

  @ApiProperty({ enum: SYNC_MODES })
  mode: SyncMode;
}

export class DeletionsConfirmedResponse implements DeletionsConfirmedView {
  @ApiProperty({ description: 'Documents deleted (with their text, chunks and unreferenced blobs)' })
  deleted: number;
}
