import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { IsServiceUrl } from '../../common/is-service-url.decorator';
import { IsUuidId, Omittable } from '@app/errors';

export class CreateCredentialDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ enum: ['DocumentSystem'] })
  @IsIn(['DocumentSystem'])
  type: 'DocumentSystem';

  @ApiProperty({ example: 'https://acme.docs.example.com' })
  @IsServiceUrl()
  instanceUrl: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  username: string;

  @ApiProperty({ writeOnly: true })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  password: string;

  @ApiProperty({
    enum: ['Tenant', 'Project'],
    description:
      'An inline credential of a user who may not manage credentials belongs to its data source, whatever the scope',
  })
  @IsIn(['Tenant', 'Project'])
  scope: 'Tenant' | 'Project';

  @ApiPropertyOptional({ description: 'Required when scope is Project' })
  @ValidateIf((o: CreateCredentialDto) => o.scope === 'Project' || o.projectId !== undefined)
  @IsUuidId()
  projectId?: string;
}

/** Full body; the password is optional (omit it to keep the current one). */
export class UpdateCredentialDto extends CreateCredentialDto {
  @ApiPropertyOptional({ writeOnly: true })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  declare password: string;
}

export class ValidateCredentialDto {
  @ApiProperty({ description: 'The OAuth connection whose access token opens the session' })
  @IsUuidId()
  connectionId: string;
}
