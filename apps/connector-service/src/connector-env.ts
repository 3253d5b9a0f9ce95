import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, ValidateIf } from 'class-validator';
import { BaseEnv, booleanFromEnv } from '@app/config';

export class ConnectorEnv extends BaseEnv {
  PORT: number = 3001;
  PUBLIC_BASE_URL = 'http://localhost:3001';

  /** Allow plain-http OAuth endpoints and instance URLs (local development and tests only). */
  @IsBoolean()
  @booleanFromEnv()
  ALLOW_INSECURE_URLS: boolean = false;

  /** Where original file bytes are kept (content-addressed). */
  @IsString()
  BLOB_DIR: string = '.data/blobs';

  /** `fs` (files under BLOB_DIR) or `s3` (an S3-compatible bucket, S3_* below). */
  @IsIn(['fs', 's3'])
  BLOB_STORE: 'fs' | 's3' = 'fs';

  @ValidateIf((env: ConnectorEnv) => env.BLOB_STORE === 's3')
  @IsString()
  S3_BUCKET?: string;

  /** Key prefix inside the bucket, e.g. `connector/`. */
  @IsString()
  S3_PREFIX: string = '';

  /** An S3-compatible endpoint (MinIO, Ceph, R2 …); unset for AWS S3. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  @IsString()
  S3_REGION: string = 'us-east-1';

  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible stores need. */
  @IsBoolean()
  @booleanFromEnv()
  S3_FORCE_PATH_STYLE: boolean = true;

  /** Static credentials; unset: the AWS default chain (environment, profile, instance role). */
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @IsInt()
  @Min(1000)
  S3_REQUEST_TIMEOUT_MS: number = 60_000;

  /** Sync jobs one worker process runs at once. */
  @IsInt()
  @Min(1)
  @Max(64)
  SYNC_CONCURRENCY: number = 8;

  /** Timeout of each call to a provider's token or revocation endpoint. */
  @IsInt()
  @Min(100)
  OAUTH_HTTP_TIMEOUT_MS: number = 10_000;

  /** Access tokens are refreshed this long before they expire. */
  @IsInt()
  @Min(0)
  OAUTH_REFRESH_AHEAD_SECONDS: number = 60;

  /** How long a started authorization (its state) may be completed. */
  @IsInt()
  @Min(1)
  OAUTH_STATE_TTL_SECONDS: number = 600;

  /** The built web console served under /console (relative to the working directory). */
  @IsString()
  CONSOLE_DIR: string = 'dist/console';

  /** `POST /console/dev-token` signs tokens for any tenant, user and role: development only. */
  @IsBoolean()
  @booleanFromEnv()
  CONSOLE_DEV_LOGIN: boolean = false;

  /** Where the console's approvals monitor finds the approval-service (its browser calls it directly). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  APPROVAL_SERVICE_URL: string = 'http://localhost:3002';
}
