import { FairShareOptions, JobOf, queueContract, WorkerSlots } from '@app/queue';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_MEDIA_TYPE_LENGTH, MEDIA_TYPE } from '../common/media-type';
import { MAX_CURSOR_LENGTH, MAX_HINT_LENGTH, SHA256_HEX } from '../document-system/answer-shapes';

/**
 * The connector's internal sync queue. WARNING: the queue name and job names are Redis keys that
 * running workers agree on; renaming one needs a migration plan (drain the queue first).
 */
export const SYNC_QUEUE = 'connector-sync';

/** A batch holds at most this many files and, unless it is a single file, at most this many bytes. */
export const INGEST_BATCH_FILES = 16;
export const INGEST_BATCH_BYTES = 4 * 1024 * 1024;

export enum SyncJobName {
  StartRun = 'start-run',
  ListFolder = 'list-folder',
  IngestFiles = 'ingest-files',
  Sweep = 'sweep',
  SettleUnselected = 'settle-unselected',
}

export class StartRunJob {
  @IsUUID()
  syncRunId: string;
}

/** One page of one folder's children. */
export class ListFolderJob {
  @IsUUID()
  syncRunId: string;

  @IsString()
  folderId: string;

  @IsString()
  path: string;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;

  /** Folder levels below the selected folder (0, or none: the selected folder itself). */
  @IsOptional()
  @IsInt()
  @Min(0)
  depth?: number;

  /** The run's tenant, put on the job by the producer: its extractions in this process give way to it. */
  @IsOptional()
  @IsString()
  tenantId?: string;
}

/** One new or changed file to download; its text is extracted afterwards on the indexing queue. */
export class FileToIngest {
  @IsString()
  fileId: string;

  @IsString()
  folderId: string;

  @IsString()
  name: string;

  @IsString()
  path: string;

  // What the listing gives of a file is taken only within these bounds (answer-shapes.ts): no job carries more.
  @IsOptional()
  @IsString()
  @MaxLength(MAX_MEDIA_TYPE_LENGTH)
  @Matches(MEDIA_TYPE)
  mimeType?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  size?: number;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_HINT_LENGTH)
  version?: string;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_HINT_LENGTH)
  modifiedAt?: string;

  @IsOptional()
  @IsString()
  @Matches(SHA256_HEX)
  sha256?: string;

  @IsIn(['added', 'updated'])
  change: 'added' | 'updated';
}

/** A batch of files of one folder page, saved in one transaction: a run's cost is bound by its bytes, not its files. */
export class IngestFilesJob {
  @IsUUID()
  syncRunId: string;

  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(INGEST_BATCH_FILES)
  @ValidateNested({ each: true })
  @Type(() => FileToIngest)
  files: FileToIngest[];

  /** The run's tenant, put on the job by the producer: its extractions in this process give way to it. */
  @IsOptional()
  @IsString()
  tenantId?: string;
}

/** The sweep carries nothing: it looks for due schedules and lost work itself. */
export class SweepJob {}

/** A data source the sweep found selecting nothing with a run or documents left: its tenant's job settles it. */
export class SettleUnselectedJob {
  @IsUUID()
  dataSourceId: string;

  @IsString()
  tenantId: string;
}

export const SYNC_JOBS = queueContract(SYNC_QUEUE, {
  [SyncJobName.StartRun]: StartRunJob,
  [SyncJobName.ListFolder]: ListFolderJob,
  [SyncJobName.IngestFiles]: IngestFilesJob,
  [SyncJobName.Sweep]: SweepJob,
  [SyncJobName.SettleUnselected]: SettleUnselectedJob,
});

export type SyncJobs = typeof SYNC_JOBS.payloads;
export type SyncJobPayloads = { [N in keyof SyncJobs]: JobOf<SyncJobs, N> };

export type SyncTask<
  N extends SyncJobName.ListFolder | SyncJobName.IngestFiles = SyncJobName.ListFolder | SyncJobName.IngestFiles,
> = {
  key: string;
  name: N;
  data: SyncJobPayloads[N];
};

export const SYNC_JOB_ATTEMPTS = 4;
export const SYNC_JOB_BACKOFF = { type: 'exponential', delay: 1000 } as const;

/**
 * One step may last long (a folder's pages, a file's download up to MAX_FILE_SECONDS): a lone tenant too
 * holds at most half of the sync slots, so the tenant that comes next finds the other half free.
 */
export const SYNC_FAIR_SHARE: FairShareOptions = { aloneShare: 0.5 };

/** A worker's sync slots, one of which only a tenant with no sync job in hand may take. */
export const syncSlots = (slots: number): WorkerSlots => ({ slots, reserved: slots > 1 ? 1 : 0 });
