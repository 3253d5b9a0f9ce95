import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';

export const PROCESS_ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** Reads the raw value: implicit conversion would turn the string "false" into true. */
export const booleanFromEnv = () =>
  Transform(({ obj, key }) => {
    const raw: unknown = obj[key];
    return typeof raw === 'string' ? ['1', 'true', 'yes'].includes(raw.trim().toLowerCase()) : raw;
  });

/** Variables every service reads. Each app extends this with its own. */
export class BaseEnv {
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// connection string' })
  DATABASE_URL: string;

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Prefix of every Redis key this service writes (Bull queues); lets test runs share one Redis. */
  @IsString()
  QUEUE_PREFIX = 'bull';

  /** How long a job stays claimed without a sign of life before another worker takes it again. */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  QUEUE_LOCK_DURATION_MS: number = 30_000;

  @IsString()
  @MinLength(32, { message: 'AUTH_JWT_SECRET must be at least 32 characters' })
  AUTH_JWT_SECRET: string;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUTH_JWKS_URL?: string;

  /** `kid:base64key[,kid:base64key…]` (first is current) or one base64 32-byte key. */
  @IsString()
  ENCRYPTION_KEY: string;

  @IsIn(PROCESS_ROLES)
  PROCESS_ROLE: ProcessRole = 'all';

  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number;

  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** Browser origins allowed to call this service (comma-separated); empty: no CORS headers at all. */
  @Matches(/^\s*$|^\s*https?:\/\/[^/,\s]+\s*(,\s*https?:\/\/[^/,\s]+\s*)*$/, {
    message: 'CORS_ORIGINS must be comma-separated origins such as https://console.example.com',
  })
  CORS_ORIGINS = '';
}

export const servesApi = (role: ProcessRole) => role !== 'worker';
export const runsWorkers = (role: ProcessRole) => role !== 'api';
