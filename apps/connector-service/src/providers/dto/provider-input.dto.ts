import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayContains,
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsServiceUrl } from '../../common/is-service-url.decorator';
import { TOKEN_ENDPOINT_AUTH_METHODS, TokenEndpointAuthMethod } from '../oauth-provider.entity';
import { Omittable } from '@app/errors';

/** RFC 6749 §3.3 scope-token: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export class ProviderBehaviourDto {
  @ApiPropertyOptional({ enum: TOKEN_ENDPOINT_AUTH_METHODS, default: 'CLIENT_SECRET_POST' })
  @IsOptional()
  @IsIn(TOKEN_ENDPOINT_AUTH_METHODS, {
    message: `tokenEndpointAuthMethod must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`,
  })
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

export class CreateProviderDto {
  @ApiProperty({ example: 'Acme document system' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ enum: ['GenericOAuth'] })
  @IsIn(['GenericOAuth'], { message: 'provider must be GenericOAuth' })
  provider: 'GenericOAuth';

  @ApiProperty({ enum: ['StaticUserOauth'] })
  @IsIn(['StaticUserOauth'], { message: 'authenticationType must be StaticUserOauth' })
  authenticationType: 'StaticUserOauth';

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  clientId: string;

  @ApiProperty({ writeOnly: true, description: 'Encrypted at rest, never returned' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  clientSecret: string;

  @ApiProperty({ example: 'https://auth.docs.example.com/oauth/authorize' })
  @IsServiceUrl()
  authorizationEndpoint: string;

  @ApiProperty({ example: 'https://auth.docs.example.com/oauth/token' })
  @IsServiceUrl()
  tokenEndpoint: string;

  @ApiPropertyOptional({ description: 'Empty string when the provider has no revocation endpoint', default: '' })
  @IsOptional()
  @IsServiceUrl({ allowEmpty: true })
  revokeEndpoint?: string;

  @ApiProperty({ example: ['openid', 'offline_access'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(SCOPE_TOKEN, { each: true, message: 'each scope must be a non-empty scope token without spaces or quotes' })
  @ArrayContains(['openid'], { message: 'supportedScopes must contain openid' })
  supportedScopes: string[];

  @ApiPropertyOptional({ type: ProviderBehaviourDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProviderBehaviourDto)
  behaviour?: ProviderBehaviourDto;
}

/** The full body again; `clientSecret` is optional: omit it to keep the secret, give it to rotate. */
export class UpdateProviderDto extends CreateProviderDto {
  @ApiPropertyOptional({ writeOnly: true, description: 'A new secret rotates it (secretVersion + 1)' })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  declare clientSecret: string;
}
