import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { FromDecimalDigits, IsUuidId } from '@app/errors';

export const PASSAGES_DEFAULT_LIMIT = 10;
export const PASSAGES_MAX_LIMIT = 50;
export const PASSAGES_DEFAULT_MAX_CHARS = 8000;
export const PASSAGES_MIN_MAX_CHARS = 200;
export const PASSAGES_MAX_MAX_CHARS = 50_000;

export class PassagesQueryDto {
  @ApiProperty({ description: 'Words, "a phrase", -excluded (as search takes them)' })
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

  @ApiPropertyOptional({ example: '/Architecture/Specifications' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  pathPrefix?: string;

  @ApiPropertyOptional({ default: PASSAGES_DEFAULT_LIMIT, minimum: 1, maximum: PASSAGES_MAX_LIMIT })
  @IsOptional()
  @FromDecimalDigits()
  @IsInt()
  @Min(1)
  @Max(PASSAGES_MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    description: "The most characters of passage text in the answer, all passages' together",
    default: PASSAGES_DEFAULT_MAX_CHARS,
    minimum: PASSAGES_MIN_MAX_CHARS,
    maximum: PASSAGES_MAX_MAX_CHARS,
  })
  @IsOptional()
  @FromDecimalDigits()
  @IsInt()
  @Min(PASSAGES_MIN_MAX_CHARS)
  @Max(PASSAGES_MAX_MAX_CHARS)
  maxChars?: number;
}
