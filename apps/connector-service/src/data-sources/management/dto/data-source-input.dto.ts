import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsNotIn,
  IsObject,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CreateCredentialDto } from '../../../credentials/dto/credential-input.dto';
import { SelectionDto } from '../../selection/dto/selection.dto';
import { IsUuidId, Omittable } from '@app/errors';

export class ScheduleDto {
  @ApiProperty({ minimum: 5, maximum: 10080 })
  @IsInt()
  @Min(5)
  @Max(10080)
  intervalMinutes: number;
}

export class CreateDataSourceDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'An existing credential; or give `credential` to create one inline' })
  @ValidateIf((o: CreateDataSourceDto) => o.credential === undefined || o.credentialId !== undefined)
  @IsUuidId()
  credentialId?: string;

  @ApiPropertyOptional({ type: CreateCredentialDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CreateCredentialDto)
  credential?: CreateCredentialDto;

  @ApiProperty()
  @IsUuidId()
  connectionId: string;

  @ApiPropertyOptional({ type: SelectionDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SelectionDto)
  selection?: SelectionDto;

  @ApiPropertyOptional({ type: ScheduleDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ScheduleDto)
  schedule?: ScheduleDto | null;
}

export class UpdateDataSourceDto {
  @ApiPropertyOptional()
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional()
  @Omittable()
  @IsUuidId()
  credentialId?: string;

  @ApiPropertyOptional()
  @Omittable()
  @IsUuidId()
  connectionId?: string;

  @ApiPropertyOptional({ type: SelectionDto })
  @Omittable()
  @IsObject()
  @ValidateNested()
  @Type(() => SelectionDto)
  selection?: SelectionDto;

  @ApiPropertyOptional({ type: ScheduleDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ScheduleDto)
  schedule?: ScheduleDto | null;
}

export class AddMemberDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  // A path segment of "." or ".." is resolved away by URLs: DELETE …/members/.. would name the data source.
  @IsNotIn(['.', '..'], { message: 'userId cannot be "." or "..": a URL path cannot name them' })
  userId: string;
}
