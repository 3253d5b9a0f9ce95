import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsString, IsUUID, Min, ValidateNested } from 'class-validator';
import { EndedSyncRunStatus, SyncCountsView } from '../views/sync-run.view';

export class SyncCountsPayload implements SyncCountsView {
  @IsInt() @Min(0) discovered: number;
  @IsInt() @Min(0) added: number;
  @IsInt() @Min(0) updated: number;
  @IsInt() @Min(0) unchanged: number;
  @IsInt() @Min(0) deleted: number;
  @IsInt() @Min(0) failed: number;
  @IsInt() @Min(0) skipped: number;
}

/** Queue `connector-events`, job name `SyncCompleted`, jobId `sync-completed:<syncRunId>`: a sync run ended. */
export class SyncCompletedEvent {
  @IsIn(['SyncCompleted'])
  type: 'SyncCompleted';

  @IsString()
  tenantId: string;

  @IsUUID()
  projectId: string;

  @IsUUID()
  dataSourceId: string;

  @IsUUID()
  syncRunId: string;

  @IsIn(['Succeeded', 'PartiallySucceeded', 'Failed', 'Cancelled'])
  status: EndedSyncRunStatus;

  @IsObject()
  @ValidateNested()
  @Type(() => SyncCountsPayload)
  counts: SyncCountsPayload;

  /** Documents of the data source whose text extraction was still `Pending` when the run ended (0: searchable now). */
  @IsInt()
  @Min(0)
  pendingExtractions: number;
}

/**
 * Queue `connector-events`, job name `DataSourceSearchable`, jobId `data-source-searchable:<syncRunId>`: no
 * document of the data source waits for its text any more, after `syncRunId` ended (at run end when nothing was
 * pending, else once the last pending extraction ended). Once per run that leaves nothing pending.
 */
export class DataSourceSearchableEvent {
  @IsIn(['DataSourceSearchable'])
  type: 'DataSourceSearchable';

  @IsString()
  tenantId: string;

  @IsUUID()
  projectId: string;

  @IsUUID()
  dataSourceId: string;

  @IsUUID()
  syncRunId: string;

  /** All documents of the data source, each with its extraction ended (text extracted, failed, unsupported or too large). */
  @IsInt()
  @Min(0)
  documents: number;

  /** Of `documents`, those whose text extraction failed (searchable by name and path only). */
  @IsInt()
  @Min(0)
  failed: number;
}
