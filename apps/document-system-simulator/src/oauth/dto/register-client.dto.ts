import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import type { ClientAuthMethod } from '../oauth-clients';

export class RegisterClientDto {
  @ApiProperty({ example: 'demo-client' })
  @IsString()
  @MaxLength(200)
  clientId: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Every secret listed is valid (rotation). Default ["secret"]. Never returned.',
    writeOnly: true,
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  clientSecrets?: string[];

  @ApiPropertyOptional({ type: [String], example: ['http://localhost:3001/v2/OAuth/callback'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { each: true })
  redirectUris?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Scopes the client may ask for. Default ["openid", "offline_access"].',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  scopes?: string[];

  @ApiPropertyOptional({
    enum: ['client_secret_post', 'client_secret_basic'],
    isArray: true,
    description: 'Default: both.',
  })
  @IsOptional()
  @IsArray()
  @IsIn(['client_secret_post', 'client_secret_basic'], { each: true })
  tokenEndpointAuthMethods?: ClientAuthMethod[];

  @ApiPropertyOptional({ description: 'Default 3600.', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400 * 30)
  accessTokenTtlSeconds?: number;

  @ApiPropertyOptional({ description: 'A refresh token works only with the client secret it was issued with.' })
  @IsOptional()
  @IsBoolean()
  refreshTokensBoundToSecret?: boolean;
}

export class OAuthSettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Approve every authorization at once as this user; null shows the login page.',
    example: 'alice',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  autoApproveUser?: string | null;
}
