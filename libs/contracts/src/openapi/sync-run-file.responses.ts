import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  RUN_FILE_OUTCOMES,
  RunFileOutcome,
  RunFileOutcomeCounts,
  SyncRunFilesPageView,
  SyncRunFileView,
} from '../views/sync-run-file.view';

export class SyncRunFileResponse implements SyncRunFileView {
  @ApiProperty({ description: "The file's id in the document system" })
  externalId: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Null: it never became a document' })
  documentId: string | null;

  @ApiProperty()
  name: string;

  @ApiProperty({ example: '/Architecture/Drawings/A-101 Floor Plan.pdf' })
  path: string;

  @ApiProperty({ enum: RUN_FILE_OUTCOMES })
  outcome: RunFileOutcome;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'TooLarge or Unsupported (Skipped), the failure (Failed), why the deletion is held (Held), else null',
  })
  reason: string | null;
}

export class SyncRunFilesPageResponse implements SyncRunFilesPageView {
  @ApiProperty({ type: () => [SyncRunFileResponse] })
  items: SyncRunFileResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  nextCursor: string | null;
}

/** Per outcome, the files below a folder that had it in the latest run; outcomes with none are left out. */
export class RunFileOutcomeCountsResponse implements RunFileOutcomeCounts {
  @ApiPropertyOptional() Added?: number;
  @ApiPropertyOptional() Updated?: number;
  @ApiPropertyOptional() Unchanged?: number;
  @ApiPropertyOptional() Deleted?: number;
  @ApiPropertyOptional() Held?: number;
  @ApiPropertyOptional() Skipped?: number;
  @ApiPropertyOptional() NoText?: number;
  @ApiPropertyOptional() Failed?: number;
}
