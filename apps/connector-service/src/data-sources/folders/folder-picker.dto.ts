import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_ID_LENGTH } from '../../document-system/answer-shapes';

export class FolderPickerQueryDto {
  @ApiPropertyOptional({ description: "Without it: the workgroups; with it: that folder's subfolders" })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  parentId?: string;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(8000)
  cursor?: string;
}
