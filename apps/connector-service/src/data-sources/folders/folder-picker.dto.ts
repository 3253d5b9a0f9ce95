import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class FolderPickerQueryDto {
  @ApiPropertyOptional({ description: "Without it: the workgroups; with it: that folder's subfolders" })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  parentId?: string;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(8000)
  cursor?: string;
}
