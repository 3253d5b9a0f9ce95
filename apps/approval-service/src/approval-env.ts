import { IsBoolean, IsOptional, IsString } from 'class-validator';
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
}
