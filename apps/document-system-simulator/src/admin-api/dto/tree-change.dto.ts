import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_GENERATED_BYTES } from './file-content.dto';

export class AddFolderDto {
  @ApiProperty({ example: 'fld-00002' })
  @IsString()
  @IsNotEmpty()
  parentId: string;

  @ApiProperty({ example: 'Level 3' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;
}

export class RelocateDto {
  @ApiPropertyOptional({ description: 'New name' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ description: 'New parent folder (not inside the node itself)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  parentId?: string;
}

export class BulkFilesDto {
  @ApiProperty({ description: 'Batches of files are made in new folders below this one' })
  @IsString()
  @IsNotEmpty()
  parentId: string;

  @ApiProperty({ minimum: 1, maximum: 1_000_000, example: 5000 })
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  count: number;

  @ApiPropertyOptional({ enum: ['text', 'pdf', 'mixed'], description: 'Default mixed' })
  @IsOptional()
  @IsIn(['text', 'pdf', 'mixed'])
  format?: 'text' | 'pdf' | 'mixed';

  @ApiPropertyOptional({ description: 'Bytes, default 2048' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_GENERATED_BYTES)
  minSize?: number;

  @ApiPropertyOptional({ description: 'Bytes, default 204800' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_GENERATED_BYTES)
  maxSize?: number;

  @ApiPropertyOptional({ description: 'Default 1' })
  @IsOptional()
  @IsInt()
  seed?: number;

  @ApiPropertyOptional({ description: 'Files per batch folder, default 500' })
  @IsOptional()
  @IsInt()
  @Min(1)
  perFolder?: number;
}
