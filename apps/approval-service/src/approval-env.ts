import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { BaseEnv, booleanFromEnv } from '@app/config';

export class ApprovalEnv extends BaseEnv {
  PORT: number = 3002;
  PUBLIC_BASE_URL = 'http://localhost:3002';

  /** Allow plain-http webhook URLs (local development and tests only). */
  @IsBoolean()
  @booleanFromEnv()
  WEBHOOK_ALLOW_INSECURE: boolean = false;

  /** Allow webhook URLs that resolve to loopback, private, link-local or metadata addresses. */
  @IsBoolean()
  @booleanFromEnv()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean = false;

  /** `whsec_…` (Standard Webhooks); when set every delivery is signed. */
  @IsOptional()
  @IsString()
  WEBHOOK_SIGNING_SECRET?: string;

  /** Callbacks accepted per client address per minute; more get 429 RATE_LIMITED. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  CALLBACK_RATE_LIMIT_PER_MINUTE: number = 1200;

  /** How often workers relay decision events their writers could not publish at once. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  OUTBOX_POLL_MS: number = 1000;
}
