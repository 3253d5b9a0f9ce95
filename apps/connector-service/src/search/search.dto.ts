import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { FromDecimalDigits, IsUuidId } from '@app/errors';

/**
 * Hits past this many are not paged to: search ranks the same bounded set of candidates for every page of
 * a query (so pages never repeat or skip a hit), and that set must hold the deepest page.
 */
export const MAX_SEARCH_OFFSET = 200;
export const MAX_SEARCH_LIMIT = 100;

const isSearchCursor = (value: unknown) =>
  typeof value === 'string' && /^(?:0|[1-9]\d{0,5})$/.test(value) && Number(value) <= MAX_SEARCH_OFFSET;

export class SearchQueryDto {
  @ApiPropertyOptional({ description: 'Words, "a phrase", -excluded, or part of a file name' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  q: string;

  @ApiPropertyOptional({
    description: 'Only this data source of the project; 404 DATA_SOURCE_NOT_FOUND if the caller may not read it',
  })
  @IsOptional()
  @IsUuidId()
  dataSourceId?: string;

  @ApiPropertyOptional({ example: '/Architecture/Drawings' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  pathPrefix?: string;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: MAX_SEARCH_LIMIT })
  @IsOptional()
  @FromDecimalDigits()
  @IsInt()
  @Min(1)
  @Max(MAX_SEARCH_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    description: `The nextCursor of the previous page; pages reach ${MAX_SEARCH_OFFSET} hits at most`,
  })
  @IsOptional()
  @ValidateBy({
    name: 'isSearchCursor',
    validator: {
      validate: isSearchCursor,
      defaultMessage: () =>
        `cursor must be a cursor returned by a previous page (pages reach ${MAX_SEARCH_OFFSET} hits at most)`,
    },
  })
  cursor?: string;
}
