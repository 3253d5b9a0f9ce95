import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Max, MaxLength, Min, ValidateBy } from 'class-validator';

/** Hits past this many are not paged to: a deep offset costs as much as ranking every hit before it. */
export const MAX_SEARCH_OFFSET = 1000;

const isSearchCursor = (value: unknown) =>
  typeof value === 'string' && /^(?:0|[1-9]\d{0,5})$/.test(value) && Number(value) <= MAX_SEARCH_OFFSET;

export class SearchQueryDto {
  @ApiPropertyOptional({ description: 'Words, "a phrase", -excluded, or part of a file name' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  q: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsUUID()
  dataSourceId?: string;

  @ApiPropertyOptional({ example: '/Architecture/Drawings' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  pathPrefix?: string;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
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
