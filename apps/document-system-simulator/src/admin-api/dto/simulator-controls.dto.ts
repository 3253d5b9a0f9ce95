import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export class FaultsDto {
  @ApiPropertyOptional({
    description: 'Share of document-API calls answered 429 with Retry-After',
    minimum: 0,
    maximum: 1,
  })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  rate429?: number;

  @ApiPropertyOptional({ description: 'Share answered 503', minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  rate5xx?: number;

  @ApiPropertyOptional({ description: 'Share whose connection is dropped without an answer', minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  dropRate?: number;

  @ApiPropertyOptional({ description: 'Added to every document-API call', minimum: 0, maximum: 60000 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  latencyMs?: number;

  @ApiPropertyOptional({ description: 'Retry-After sent with 429 (fractions allowed)', minimum: 0 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(3600)
  retryAfterSeconds?: number;

  @ApiPropertyOptional({
    description: 'File content is sent at most this fast (bytes per second); 0: unlimited',
    minimum: 0,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  contentBytesPerSecond?: number;

  @ApiPropertyOptional({ type: [String], description: 'Files still listed whose content answers 404' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  missingContent?: string[];

  @ApiPropertyOptional({ description: 'Restarts the fault sequence, so a run sees the same faults every time' })
  @IsOptional()
  @IsInt()
  seed?: number;
}

export class SettingsDto {
  @ApiPropertyOptional({ description: 'Items per page of the document API', minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  pageSize?: number;

  @ApiPropertyOptional({ description: 'Lifetime of new sessions', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400 * 30)
  sessionTtlSeconds?: number;
}

export class ExpireDto {
  @ApiPropertyOptional({ description: 'Expire every access token issued so far' })
  @IsOptional()
  @IsBoolean()
  accessTokens?: boolean;

  @ApiPropertyOptional({ description: 'Expire every session opened so far' })
  @IsOptional()
  @IsBoolean()
  sessions?: boolean;
}

export class AccessTokenRequestDto {
  @ApiPropertyOptional({ description: 'Default "test"' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  subject?: string;

  @ApiPropertyOptional({ description: 'Default 3600', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400 * 30)
  ttlSeconds?: number;
}
