import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsString } from 'class-validator';

export class SelectionDto {
  @ApiProperty({ type: [String], description: 'Folders whose whole subtree is taken' })
  @IsArray()
  @ArrayMaxSize(5000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  include: string[];

  @ApiProperty({ type: [String], description: 'Folders left out of an included subtree' })
  @IsArray()
  @ArrayMaxSize(5000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  exclude: string[];
}
