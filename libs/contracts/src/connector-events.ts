import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Min, ValidateNested } from 'class-validator';

export class SyncCountsPayload {
  @IsInt() @Min(0) discovered: number;
  @IsInt() @Min(0) added: number;
  @IsInt() @Min(0) updated: number;
  @IsInt() @Min(0) unchanged: number;
  @IsInt() @Min(0) deleted: number;
  @IsInt() @Min(0) failed: number;
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
  status: 'Succeeded' | 'PartiallySucceeded' | 'Failed' | 'Cancelled';

  @ValidateNested()
  @Type(() => SyncCountsPayload)
  counts: SyncCountsPayload;
}
