import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';

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

  @ApiPropertyOptional()
  @IsOptional()
  @Matches(/^\d{1,6}$/, { message: 'cursor must be a cursor returned by a previous page' })
  cursor?: string;
}
