import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { FreeForm } from '@app/errors';
import { APPROVAL_OUTCOMES, ApprovalOutcome, WEBHOOK_AUTH_TYPES, WebhookAuthType } from '../views/approval.view';

export const MESSAGE_MAX = 2000;
/** The longest decision deadline (30 days); the shortest is the service's DECISION_TIMEOUT_MIN_SECONDS (default 60). */
export const DECISION_TIMEOUT_MAX_SECONDS = 2_592_000;
/** Reminders: at most one a week; the shortest interval is the service's WEBHOOK_REMIND_MIN_SECONDS (default 300). */
export const REMIND_AFTER_MAX_SECONDS = 604_800;
/** At this length or more a warning is logged (SPEC: under 500 recommended). */
export const MESSAGE_WARN_AT = 500;

/** Headers a CustomHeader may not set: the service sets them, or they frame the request (smuggling). */
export const RESERVED_HEADER_NAMES = [
  'Host',
  'Content-Length',
  'Content-Type',
  'Content-Encoding',
  'Transfer-Encoding',
  'TE',
  'Trailer',
  'Connection',
  'Keep-Alive',
  'Upgrade',
  'Expect',
  'Proxy-Connection',
  'Proxy-Authorization',
  'User-Agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];
const NOT_RESERVED_HEADER = new RegExp(`^(?!(?:${RESERVED_HEADER_NAMES.join('|')})$)`, 'i');

/** What Node sends in a header value: tab, visible ASCII and the Latin-1 upper half; never a line break. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const SendableAsHeader = (field: string) =>
  Matches(HEADER_VALUE, {
    message: `${field} must be sendable in an HTTP header (no control characters, Latin-1 only)`,
  });

export class WebhookAuthenticationDto {
  @ApiProperty({ enum: WEBHOOK_AUTH_TYPES })
  @IsIn(WEBHOOK_AUTH_TYPES)
  type: WebhookAuthType;

  @ApiPropertyOptional({ writeOnly: true, description: 'ApiKey: sent as X-API-Key' })
  @ValidateIf((o: WebhookAuthenticationDto) => o.type === 'ApiKey')
  @IsString()
  @IsNotEmpty()
  @SendableAsHeader('apiKey')
  @MaxLength(4096)
  apiKey?: string;

  @ApiPropertyOptional({ writeOnly: true, description: 'BearerToken: sent as Authorization: Bearer' })
  @ValidateIf((o: WebhookAuthenticationDto) => o.type === 'BearerToken')
  @IsString()
  @IsNotEmpty()
  @SendableAsHeader('token')
  @MaxLength(4096)
  token?: string;

  @ApiPropertyOptional({ description: 'BasicAuth' })
  @ValidateIf((o: WebhookAuthenticationDto) => o.type === 'BasicAuth')
  @IsString()
  @IsNotEmpty()
  @Matches(/^[^:]*$/, { message: 'username must not contain ":"' })
  @MaxLength(1024)
  username?: string;

  @ApiPropertyOptional({ writeOnly: true, description: 'BasicAuth' })
  @ValidateIf((o: WebhookAuthenticationDto) => o.type === 'BasicAuth')
  @IsString()
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ description: 'CustomHeader: the header name' })
  @ValidateIf((o: WebhookAuthenticationDto) => o.type === 'CustomHeader')
  @IsString()
  @Matches(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, { message: 'headerName must be a valid HTTP header name' })
  @Matches(NOT_RESERVED_HEADER, {
    message: `headerName must not be one the service sets or that frames the request (${RESERVED_HEADER_NAMES.join(', ')})`,
  })
  headerName?: string;

  @ApiPropertyOptional({ writeOnly: true, description: 'CustomHeader: the header value' })
  @ValidateIf((o: WebhookAuthenticationDto) => o.type === 'CustomHeader')
  @IsString()
  @SendableAsHeader('headerValue')
  @MaxLength(4096)
  headerValue?: string;
}

export class WebhookConfigDto {
  @ApiProperty({ example: 'https://approvals.example.com/hooks/agent' })
  @IsUrl(
    { require_tld: false, protocols: ['http', 'https'], require_protocol: true },
    { message: 'url must be an absolute http(s) URL' },
  )
  @MaxLength(2048)
  url: string;

  @ApiProperty({ type: WebhookAuthenticationDto })
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookAuthenticationDto)
  @IsDefined()
  authentication: WebhookAuthenticationDto;

  @ApiPropertyOptional({ default: 300, minimum: 1, maximum: 3600 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  timeoutSeconds?: number;

  @ApiPropertyOptional({ default: 3, minimum: 0, maximum: 10 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  maxRetryAttempts?: number;

  @ApiPropertyOptional({ default: '', maxLength: MESSAGE_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_MAX)
  message?: string;

  @ApiPropertyOptional({
    minimum: 300,
    maximum: REMIND_AFTER_MAX_SECONDS,
    description:
      'While the approval awaits its decision, the webhook is sent again every this many seconds from the request, ' +
      'with `reminder: n` in its body; none after the decision, a cancel or the decision deadline. Absent: no reminders',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(REMIND_AFTER_MAX_SECONDS)
  remindAfterSeconds?: number;
}

/** POST /v1/approvals (tenant from the token), and the body of a REST test delivery's `webhook`. */
export class ApprovalRequestDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  executionId: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  stepId: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  agentName: string;

  @ApiProperty({ type: WebhookConfigDto })
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookConfigDto)
  @IsDefined()
  webhook: WebhookConfigDto;

  @ApiPropertyOptional({
    minimum: 60,
    maximum: DECISION_TIMEOUT_MAX_SECONDS,
    description: 'No decision within this many seconds: TimedOut. Absent: no limit',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(DECISION_TIMEOUT_MAX_SECONDS)
  decisionTimeoutSeconds?: number;

  @ApiPropertyOptional({ description: 'Data passed into this step (any JSON, kept as sent)' })
  @IsOptional()
  @FreeForm()
  stepInput?: unknown;

  @ApiPropertyOptional({ description: 'Results of all previous steps (any JSON, kept as sent)' })
  @IsOptional()
  @FreeForm()
  previousResults?: unknown;
}

/** Queue `approval-requests`: the agent runtime is trusted and names the tenant. */
export class ApprovalRequestJob extends ApprovalRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  tenantId: string;
}

/** Queue `approval-decisions`, jobId = approvalId, emitted exactly once per approval. */
export class ApprovalDecisionEvent {
  @IsString()
  approvalId: string;

  @IsString()
  tenantId: string;

  @IsString()
  executionId: string;

  @IsString()
  stepId: string;

  @IsIn(APPROVAL_OUTCOMES)
  outcome: ApprovalOutcome;

  @IsOptional()
  @IsString()
  comment: string | null;

  /** Who decided, as the callback named them; null when it did not, and for every other outcome. */
  @IsOptional()
  @IsString()
  decidedBy: string | null;

  /** The data the decider handed back with the callback (a JSON object); null when none, and for every other outcome. */
  @IsOptional()
  @FreeForm()
  output: Record<string, unknown> | null;

  @IsString()
  decidedAt: string;
}

export class TestWebhookDto {
  @ApiProperty({ type: WebhookConfigDto })
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookConfigDto)
  @IsDefined()
  webhook: WebhookConfigDto;
}
