import { ApiPropertyOptional } from '@nestjs/swagger';
import { FromDecimalDigits } from '@app/errors';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { RUN_FILE_OUTCOMES, RunFileOutcome } from '@app/contracts/views';

/** As the tree's pages: both list files. */
export const RUN_FILES_PAGE_DEFAULT = 500;
export const RUN_FILES_PAGE_MAX = 1000;

export class SyncRunFilesQueryDto {
  @ApiPropertyOptional({ enum: RUN_FILE_OUTCOMES, description: 'Only the files with this outcome' })
  @IsOptional()
  @IsIn(RUN_FILE_OUTCOMES)
  outcome?: RunFileOutcome;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(8000)
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Files on one page',
    default: RUN_FILES_PAGE_DEFAULT,
    minimum: 1,
    maximum: RUN_FILES_PAGE_MAX,
  })
  @IsOptional()
  @FromDecimalDigits()
  @IsInt()
  @Min(1)
  @Max(RUN_FILES_PAGE_MAX)
  limit?: number;
}
