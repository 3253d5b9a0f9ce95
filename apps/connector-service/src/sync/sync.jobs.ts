import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

/**
 * The connector's internal sync queue. WARNING: the queue name and job names are Redis keys that
 * running workers agree on; renaming one needs a migration plan (drain the queue first).
 */
export const SYNC_QUEUE = 'connector-sync';

export enum SyncJobName {
  StartRun = 'start-run',
  ListFolder = 'list-folder',
  IngestFile = 'ingest-file',
  Sweep = 'sweep',
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
  @MaxLength(4096)
  cursor?: string;
}

/** One new or changed file to download, extract and index. */
export class IngestFileJob {
  @IsUUID()
  syncRunId: string;

  @IsString()
  fileId: string;

  @IsString()
  folderId: string;

  @IsString()
  name: string;

  @IsString()
  path: string;

  @IsOptional()
  @IsString()
  mimeType?: string;

  @IsOptional()
  @IsString()
  version?: string;

  @IsOptional()
  @IsString()
  modifiedAt?: string;

  @IsOptional()
  @IsString()
  sha256?: string;

  @IsIn(['added', 'updated'])
  change: 'added' | 'updated';
}

export interface SyncJobPayloads {
  [SyncJobName.StartRun]: StartRunJob;
  [SyncJobName.ListFolder]: ListFolderJob;
  [SyncJobName.IngestFile]: IngestFileJob;
  [SyncJobName.Sweep]: Record<string, never>;
}

export type SyncTask<N extends SyncJobName.ListFolder | SyncJobName.IngestFile = SyncJobName.ListFolder | SyncJobName.IngestFile> = {
  key: string;
  name: N;
  data: SyncJobPayloads[N];
};

export const SYNC_JOB_ATTEMPTS = 4;
export const SYNC_JOB_BACKOFF = { type: 'exponential', delay: 1000 } as const;
