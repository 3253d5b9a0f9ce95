import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const TREE_PAGE_DEFAULT = 500;
export const TREE_PAGE_MAX = 1000;

export class TreeQueryDto {
  @ApiPropertyOptional({ description: 'Without it: the workgroups' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  folderId?: string;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(8000)
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Folders and files on one page',
    default: TREE_PAGE_DEFAULT,
    minimum: 1,
    maximum: TREE_PAGE_MAX,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(TREE_PAGE_MAX)
  limit?: number;
}
