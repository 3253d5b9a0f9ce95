import { ApiPropertyOptional } from '@nestjs/swagger';
import { FromDecimalDigits } from '@app/errors';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';

export const TREE_PAGE_DEFAULT = 500;
export const TREE_PAGE_MAX = 1000;

export class TreeQueryDto {
  @ApiPropertyOptional({ description: 'Without it: the workgroups' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  folderId?: string;

  /** The folder picker's name for folderId; both may be given only when they name the same folder. */
  @ApiPropertyOptional({ description: 'Alias of folderId (the name the folder picker uses)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @ValidateBy({
    name: 'sameAsFolderId',
    validator: {
      validate: (parentId: unknown, args) => {
        const folderId = (args?.object as TreeQueryDto | undefined)?.folderId;
        return !folderId || !parentId || parentId === folderId;
      },
      defaultMessage: () => 'parentId is an alias of folderId: when both are given they must be the same',
    },
  })
  parentId?: string;

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
  @FromDecimalDigits()
  @IsInt()
  @Min(1)
  @Max(TREE_PAGE_MAX)
  limit?: number;
}
