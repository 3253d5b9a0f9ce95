import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_ID_LENGTH } from '../../../document-system/answer-shapes';

export class SelectionDto {
  @ApiProperty({ type: [String], description: 'Folders whose whole subtree is taken' })
  @IsArray()
  @ArrayMaxSize(5000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  include: string[];

  @ApiProperty({ type: [String], description: 'Folders left out of an included subtree' })
  @IsArray()
  @ArrayMaxSize(5000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  exclude: string[];
}
