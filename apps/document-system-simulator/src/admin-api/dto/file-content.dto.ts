import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBase64,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** Files above this are generated, never held: up to 64 GiB of deterministic content. */
export const MAX_GENERATED_BYTES = 64 * 1024 ** 3;

export class GenerateContentDto {
  @ApiProperty({ enum: ['text', 'pdf'] })
  @IsIn(['text', 'pdf'])
  format: 'text' | 'pdf';

  @ApiProperty({
    description: 'Bytes (a PDF comes out about this size)',
    minimum: 0,
    maximum: MAX_GENERATED_BYTES,
    example: 1048576,
  })
  @IsInt()
  @Min(0)
  @Max(MAX_GENERATED_BYTES)
  size: number;

  @ApiPropertyOptional({ description: 'The same seed gives the same bytes. Default 1.' })
  @IsOptional()
  @IsInt()
  seed?: number;
}

/** A file's content: exactly one of text, base64 or generate. */
export class FileContentDto {
  @ApiPropertyOptional({ description: 'UTF-8 text content' })
  @IsOptional()
  @IsString()
  text?: string;

  @ApiPropertyOptional({ description: 'Binary content, base64' })
  @IsOptional()
  @IsBase64()
  base64?: string;

  @ApiPropertyOptional({
    type: GenerateContentDto,
    description: 'Content generated from a seed (large files, benchmarks); only the seed is kept',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => GenerateContentDto)
  generate?: GenerateContentDto;

  @ApiPropertyOptional({
    description: 'Default: text/plain, application/octet-stream, or that of the generated format',
    example: 'text/markdown',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  mimeType?: string;
}

export class AddFileDto extends FileContentDto {
  @ApiProperty({ description: 'The folder to add it to (GET /admin/folders?path= finds an id)', example: 'fld-00002' })
  @IsString()
  @IsNotEmpty()
  parentId: string;

  @ApiProperty({ example: 'Site notes.txt' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;
}
